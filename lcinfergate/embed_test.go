package lcinfergate_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
)

func TestCreateEmbedding(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "llama-3.3-70b", lcinfergate.WithEmbeddingModel("bge-m3"))
	texts := make([]string, infergate.MaxEmbeddingInputs+3)
	for i := range texts {
		texts[i] = fmt.Sprintf("text number %d", i)
	}
	vectors, err := llm.CreateEmbedding(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vectors) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vectors), len(texts))
	}
	for _, i := range []int{0, infergate.MaxEmbeddingInputs - 1, infergate.MaxEmbeddingInputs, len(texts) - 1} {
		if diff := cmp.Diff(gatewaytest.Embed(texts[i], gatewaytest.DefaultEmbeddingDimensions), vectors[i]); diff != "" {
			t.Errorf("vector %d (-want +got):\n%s", i, diff)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "bge-m3" {
		t.Errorf("%d requests, the first for %v; want 2 for bge-m3", len(reqs), reqs[0].JSON["model"])
	}

	s.FailNext(1, gatewaytest.DetailErrorReply(401, "bad key"))
	_, err = llm.CreateEmbedding(context.Background(), []string{"x"})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Errorf("a 401: err = %v, want an *infergate.APIError", err)
	}
}
