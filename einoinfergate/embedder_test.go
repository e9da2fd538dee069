package einoinfergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/embedding"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

func TestEmbedder(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t)
	e, err := einoinfergate.NewEmbedder(srv.Client(), "bge-m3")
	if err != nil {
		t.Fatal(err)
	}
	var usage *embedding.TokenUsage
	var cfgModel string
	h := callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, _ *callbacks.RunInfo, in callbacks.CallbackInput) context.Context {
			cfgModel = embedding.ConvCallbackInput(in).Config.Model
			return ctx
		}).
		OnEndFn(func(ctx context.Context, _ *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			usage = embedding.ConvCallbackOutput(out).TokenUsage
			return ctx
		}).Build()
	ctx := callbacks.InitCallbacks(context.Background(), nil, h)
	texts := []string{"the cat sat", "a dog ran far"}
	got, err := e.EmbedStrings(ctx, texts, embedding.WithModel("other-embedder"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors, want %d", len(got), len(texts))
	}
	for i, text := range texts {
		want := gatewaytest.Embed(text, gatewaytest.DefaultEmbeddingDimensions)
		for j := range want {
			if got[i][j] != float64(want[j]) {
				t.Fatalf("vector %d differs from the fake's at %d: %v, want %v", i, j, got[i][j], want[j])
			}
		}
	}
	if sent := srv.Requests()[0].JSON["model"]; sent != "other-embedder" || cfgModel != "other-embedder" {
		t.Fatalf("model sent %v, in callbacks %q: want other-embedder", sent, cfgModel)
	}
	if usage == nil || usage.PromptTokens == 0 || usage.TotalTokens != usage.PromptTokens {
		t.Fatalf("usage in callbacks %+v", usage)
	}
	if e.GetType() != "Infergate" || !e.IsCallbacksEnabled() {
		t.Fatal("GetType or IsCallbacksEnabled")
	}

	none, err := e.EmbedStrings(context.Background(), nil)
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("no texts: %v, %v; want no vectors and no error", none, err)
	}
	_, err = e.EmbedStrings(context.Background(), []string{"ok", ""})
	var v *infergate.ValidationError
	if !errors.As(err, &v) {
		t.Fatalf("an empty text: %v, want a *infergate.ValidationError", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	if d := cmp.Diff([]any{"the cat sat", "a dog ran far"}, srv.Requests()[0].JSON["input"]); d != "" {
		t.Fatalf("input sent (-want +got):\n%s", d)
	}
}

// More texts than one request may carry go in several requests, the vectors in the texts' order.
func TestEmbedderSplitsLongInputs(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t)
	e, err := einoinfergate.NewEmbedder(srv.Client(), "")
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, infergate.MaxEmbeddingInputs+3)
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d", i)
	}
	var usage *embedding.TokenUsage
	h := callbacks.NewHandlerBuilder().
		OnEndFn(func(ctx context.Context, _ *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			usage = embedding.ConvCallbackOutput(out).TokenUsage
			return ctx
		}).Build()
	got, err := e.EmbedStrings(callbacks.InitCallbacks(context.Background(), nil, h), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors, want %d", len(got), len(texts))
	}
	for _, i := range []int{0, infergate.MaxEmbeddingInputs - 1, infergate.MaxEmbeddingInputs, len(texts) - 1} {
		want := gatewaytest.Embed(texts[i], gatewaytest.DefaultEmbeddingDimensions)
		if float32(got[i][0]) != want[0] || float32(got[i][len(want)-1]) != want[len(want)-1] {
			t.Fatalf("vector %d is not the one of %q", i, texts[i])
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if in, _ := r.JSON["input"].([]any); len(in) > infergate.MaxEmbeddingInputs {
			t.Fatalf("a request carried %d texts", len(in))
		}
	}
	prompt := 0 // the fake counts a text's words as its tokens
	for _, text := range texts {
		prompt += len(strings.Fields(text))
	}
	if usage == nil || usage.PromptTokens != prompt || usage.TotalTokens != prompt {
		t.Fatalf("usage %+v, want %d prompt tokens, both requests'", usage, prompt)
	}
}

// The usage of texts sent in several requests is summed as the SDK sums counts: two that would wrap
// the sum give the largest int, and a negative one is read as none.
func TestEmbedderUsageOfOddCounts(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		data := make([]map[string]any, len(req.Input))
		for i := range data {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": []float32{1}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "m", "data": data,
			"usage": map[string]int{"prompt_tokens": math.MaxInt, "completion_tokens": -3, "total_tokens": math.MaxInt}})
	}))
	t.Cleanup(srv.Close)
	client, err := infergate.NewClient(infergate.WithAPIKey("sk-test-key"), infergate.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	e, err := einoinfergate.NewEmbedder(client, "m")
	if err != nil {
		t.Fatal(err)
	}
	var usage *embedding.TokenUsage
	h := callbacks.NewHandlerBuilder().
		OnEndFn(func(ctx context.Context, _ *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			usage = embedding.ConvCallbackOutput(out).TokenUsage
			return ctx
		}).Build()
	texts := make([]string, infergate.MaxEmbeddingInputs+1)
	for i := range texts {
		texts[i] = "t"
	}
	if _, err := e.EmbedStrings(callbacks.InitCallbacks(context.Background(), nil, h), texts); err != nil {
		t.Fatal(err)
	}
	if want := (embedding.TokenUsage{PromptTokens: math.MaxInt, TotalTokens: math.MaxInt}); usage == nil || *usage != want {
		t.Errorf("usage %+v; want %+v", usage, want)
	}
}
