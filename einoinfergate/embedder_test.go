package einoinfergate_test

import (
	"context"
	"errors"
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
