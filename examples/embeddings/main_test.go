package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client, ""); err != nil {
		t.Fatal(err)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
What is the capital of France?
  0.833  Paris is the capital of France.
  0.167  The Eiffel Tower is in Paris.
  0.167  The stock market fell on Monday.
  0.000  Bananas are rich in potassium.
(text-embedding-bge-m3, 29 tokens)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestRunSendsOneBatchAndReportsFailures(t *testing.T) {
	srv := gatewaytest.New(t)
	if err := run(context.Background(), &strings.Builder{}, srv.Client(), gatewaytest.DefaultEmbeddingModel); err != nil {
		t.Fatal(err)
	}
	req, _ := srv.LastRequest()
	if input, _ := req.JSON["input"].([]any); len(input) != len(sentences)+1 || req.JSON["model"] != gatewaytest.DefaultEmbeddingModel {
		t.Errorf("request = %s", req.Body)
	}
	srv.FailNext(1, gatewaytest.OpenAIErrorReply(402, gatewaytest.OpenAIErrorFields{Message: "Insufficient balance", Type: "billing", Code: "insufficient_balance"}))
	if err := run(context.Background(), &strings.Builder{}, srv.Client(), ""); !errors.Is(err, infergate.ErrInsufficientBalance) {
		t.Errorf("err = %v, want ErrInsufficientBalance", err)
	}
}

func TestCosine(t *testing.T) {
	for _, tt := range []struct {
		a, b []float32
		want float64
	}{{[]float32{1, 0}, []float32{2, 0}, 1}, {[]float32{1, 0}, []float32{0, 3}, 0}, {[]float32{1, 1}, []float32{-1, -1}, -1}, {[]float32{0, 0}, []float32{1, 0}, 0}} {
		if got := cosine(tt.a, tt.b); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
