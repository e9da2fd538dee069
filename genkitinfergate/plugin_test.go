package genkitinfergate_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/api"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/genkitinfergate"
)

// ListActions offers the catalogue: text models as models, embedding models as embedders, and no
// speech model.
func TestListActions(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t, gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "llama-3.3-70b"},
		gatewaytest.CatalogModel{ID: "glm-5.1:web"},
		gatewaytest.CatalogModel{ID: "mystery", ModelType: "UNKNOWN"},
		gatewaytest.CatalogModel{ID: "bge-m3", ModelType: "EMBEDDING"},
		gatewaytest.CatalogModel{ID: "whisper", ModelType: "STT"},
		gatewaytest.CatalogModel{ID: "kokoro", ModelType: "TTS"},
	))
	p := genkitinfergate.New(srv.Client())
	var got []string
	for _, d := range p.ListActions(context.Background()) {
		got = append(got, d.Key)
		_, id := api.ParseName(d.Name)
		if diff := cmp.Diff(p.ResolveAction(d.Type, id).Desc(), d); diff != "" {
			t.Errorf("%s listed unlike its action (-resolved +listed):\n%s", d.Key, diff)
		}
		if d.Type == api.ActionTypeModel {
			supports, _ := d.Metadata["model"].(map[string]any)["supports"].(map[string]any)
			if supports["tools"] != true || supports["media"] != true || supports["systemRole"] != true {
				t.Errorf("%s supports %v", d.Key, supports)
			}
		}
	}
	want := []string{"/model/infergate/llama-3.3-70b", "/model/infergate/glm-5.1:web", "/model/infergate/mystery", "/embedder/infergate/bge-m3"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("actions (-want +got):\n%s", d)
	}

	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusUnauthorized, "bad key"))
	if got := p.ListActions(context.Background()); got != nil {
		t.Fatalf("a failed listing gives %v", got)
	}
}

// A model named in genkit is resolved through the plugin and answered by that model; one defined
// by the caller carries the caller's description.
func TestResolveAndDefine(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	m := genkitinfergate.Model(g, "qwen2.5-vl-72b")
	if m == nil || m.Name() != "infergate/qwen2.5-vl-72b" {
		t.Fatalf("Model: %v", m)
	}
	srv.Enqueue(gatewaytest.Reply{Content: "hi"})
	resp, err := genkit.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("q"))
	if err != nil || resp.Text() != "hi" {
		t.Fatalf("Generate: %v, %v", resp, err)
	}
	if last, _ := srv.LastRequest(); last.JSON["model"] != "qwen2.5-vl-72b" {
		t.Fatalf("model sent: %v", last.JSON["model"])
	}

	p := genkit.LookupPlugin(g, "infergate").(*genkitinfergate.Plugin)
	text := p.DefineModel(g, "text-only", &ai.ModelOptions{Label: "text only", Supports: &ai.ModelSupports{Multiturn: true}})
	if genkitinfergate.Model(g, "text-only") == nil {
		t.Fatal("the defined model is not registered")
	}
	_, err = genkit.Generate(context.Background(), g, ai.WithModel(text),
		ai.WithMessages(ai.NewUserMessage(ai.NewMediaPart("image/png", pngDataURL))))
	if err == nil {
		t.Fatal("a model defined without media took an image")
	}
	if p.ResolveAction(api.ActionTypeTool, "x") != nil || p.ResolveAction(api.ActionTypeModel, "") != nil {
		t.Fatal("resolved what the plugin does not offer")
	}
}

func TestEmbedder(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	docs := make([]*ai.Document, infergate.MaxEmbeddingInputs+1)
	for i := range docs {
		docs[i] = ai.DocumentFromText("text", nil)
	}
	docs[0] = &ai.Document{Content: []*ai.Part{ai.NewTextPart("two "), ai.NewTextPart("parts")}}
	resp, err := genkit.Embed(context.Background(), g, ai.WithEmbedderName("infergate/bge-m3"), ai.WithDocs(docs...))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Embeddings) != len(docs) || len(resp.Embeddings[0].Embedding) != gatewaytest.DefaultEmbeddingDimensions {
		t.Fatalf("%d vectors, want %d of %d", len(resp.Embeddings), len(docs), gatewaytest.DefaultEmbeddingDimensions)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "bge-m3" {
		t.Fatalf("%d requests, want 2 for bge-m3", len(reqs))
	}
	if first := reqs[0].JSON["input"].([]any)[0]; first != "two parts" {
		t.Fatalf("first text sent %q", first)
	}

	e := genkitinfergate.Embedder(g, "bge-m3")
	for name, req := range map[string]*ai.EmbedRequest{
		"image":   {Input: []*ai.Document{{Content: []*ai.Part{ai.NewMediaPart("image/png", pngDataURL)}}}},
		"options": {Input: []*ai.Document{ai.DocumentFromText("a", nil)}, Options: map[string]any{"dimensions": 8}},
	} {
		var ve *infergate.ValidationError
		if _, err := e.Embed(context.Background(), req); !errors.As(err, &ve) {
			t.Errorf("%s: error %v, want an *infergate.ValidationError", name, err)
		}
	}
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusBadRequest, "no"))
	var ae *infergate.APIError
	if _, err := e.Embed(context.Background(), &ai.EmbedRequest{Input: []*ai.Document{ai.DocumentFromText("a", nil)}}); !errors.As(err, &ae) {
		t.Fatalf("error %v, want an *infergate.APIError", err)
	}
}

// A plugin without a client, or a nil one, lists nothing, and its models and embedders answer
// with an error.
func TestNilClient(t *testing.T) {
	t.Parallel()
	p := genkitinfergate.New(nil, nil)
	if got := p.ListActions(context.Background()); got != nil {
		t.Fatalf("ListActions: %v", got)
	}
	g := genkit.Init(t.Context(), genkit.WithPlugins(p))
	var ve *infergate.ValidationError
	if _, err := generate(g, ai.WithPrompt("q")); !errors.As(err, &ve) {
		t.Fatalf("Generate: %v, want an *infergate.ValidationError", err)
	}
	if _, err := genkit.Embed(context.Background(), g, ai.WithEmbedderName("infergate/e"), ai.WithTextDocs("a")); !errors.As(err, &ve) {
		t.Fatalf("Embed: %v, want an *infergate.ValidationError", err)
	}
	var none *genkitinfergate.Plugin
	if _, err := none.DefineModel(g, "m", nil).Generate(context.Background(), &ai.ModelRequest{}, nil); !errors.As(err, &ve) {
		t.Fatalf("a nil plugin's model: %v, want an *infergate.ValidationError", err)
	}
}
