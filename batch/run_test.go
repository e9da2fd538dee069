package batch_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestRunAnswersEveryLine runs chat and embedding lines and finds one successful result for each,
// with the gateway's answer as its body.
func TestRunAnswersEveryLine(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	var lines []string
	for i := range 30 {
		lines = append(lines, chatLine(fmt.Sprint("c", i), fmt.Sprint("question ", i)))
		lines = append(lines, embedLine(fmt.Sprint("e", i), fmt.Sprint("text ", i)))
	}
	in, out := files(t, lines...)
	sum, err := batch.Run(context.Background(), s.Client(), batch.Job{Input: in, Output: out, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total != 60 || sum.Succeeded != 60 || sum.Failed != 0 || sum.Sent != 60 || sum.Resumed != 0 || sum.Interrupted {
		t.Errorf("summary %+v", sum)
	}
	got := byID(t, results(t, out))
	if len(got) != 60 {
		t.Fatalf("%d results for 60 lines", len(got))
	}
	for id, r := range got {
		if !r.Succeeded() || r.Error != nil || r.Response.RequestID == "" || !strings.HasPrefix(r.ID, "batch_req_") {
			t.Errorf("%s: %+v", id, r)
			continue
		}
		var body struct {
			Object string `json:"object"`
			Data   []struct {
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Response.Body, &body); err != nil {
			t.Errorf("%s: body %v", id, err)
		}
		want := "chat.completion"
		if strings.HasPrefix(id, "e") {
			want = "list"
			if len(body.Data) != 1 || len(body.Data[0].Embedding) == 0 {
				t.Errorf("%s: no vector as floats: %s", id, r.Response.Body)
			}
		}
		if body.Object != want {
			t.Errorf("%s: object %q, want %q", id, body.Object, want)
		}
	}
	if sum.Usage.TotalTokens == 0 {
		t.Errorf("no usage summed: %+v", sum.Usage)
	}
}

// TestEmbeddingsInTheEncodingAsked writes vectors as lists of numbers, OpenAI's default, and as
// base64 when the line asks for it; both are the gateway's vector.
func TestEmbeddingsInTheEncodingAsked(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	in, out := files(t,
		`{"custom_id":"float","method":"POST","url":"/v1/embeddings","body":{"input":"the text"}}`,
		`{"custom_id":"base64","method":"POST","url":"/v1/embeddings","body":{"input":["the text"],"encoding_format":"base64"}}`)
	if _, err := batch.Run(context.Background(), s.Client(), batch.Job{Input: in, Output: out}); err != nil {
		t.Fatal(err)
	}
	want := gatewaytest.Embed("the text", gatewaytest.DefaultEmbeddingDimensions)
	rs := byID(t, results(t, out))
	var asFloats struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rs["float"].Response.Body, &asFloats); err != nil || len(asFloats.Data) != 1 || !slices.Equal(asFloats.Data[0].Embedding, want) {
		t.Errorf("float: %v %s", err, rs["float"].Response.Body)
	}
	var asBase64 struct {
		Data []struct {
			Embedding string `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rs["base64"].Response.Body, &asBase64); err != nil || len(asBase64.Data) != 1 {
		t.Fatalf("base64: %v %s", err, rs["base64"].Response.Body)
	}
	raw, err := base64.StdEncoding.DecodeString(asBase64.Data[0].Embedding)
	if err != nil || len(raw) != 4*len(want) {
		t.Fatalf("base64: %v, %d bytes", err, len(raw))
	}
	for i, f := range want {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); got != f {
			t.Fatalf("base64: number %d is %v, want %v", i, got, f)
		}
	}
}
