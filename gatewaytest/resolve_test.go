package gatewaytest_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// The catalogue lists a model of every type the routes serve, and what each route falls back to
// is in it with that type: a chat, an embedding, a speech and a transcription model.
func TestCatalogueHasAModelForEveryRoute(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	types := map[string]string{}
	for _, m := range gatewaytest.DefaultModels() {
		types[m.ID] = m.ModelType
	}
	health, err := s.Client().Health.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	service := health.ModelService
	for name, want := range map[string]string{service.DefaultFallbackModel: "LLM", service.DefaultFallbackEmbeddingsModel: "EMBEDDING",
		service.DefaultFallbackTTSModel: "TTS", service.DefaultFallbackSTTModel: "STT"} {
		if types[name] != want {
			t.Errorf("/health's default %q is of type %q in the catalogue; want a %s model of the catalogue", name, types[name], want)
		}
	}
	client := s.Client()
	chat, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("Hi")}})
	if err != nil || types[chat.Model] != "LLM" {
		t.Errorf("a chat naming no model is answered by %q (%v), want an LLM of the catalogue", chat.Model, err)
	}
	emb, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: []string{"Hi"}})
	if err != nil || types[emb.Model] != "EMBEDDING" {
		t.Errorf("embeddings naming no model are answered by %q (%v), want an EMBEDDING model of the catalogue", emb.Model, err)
	}
}

// A name close to a catalogue name is a 400 naming the catalogue's near names, in the deployed
// gateway's body; a name close to none is answered by the default model, as the gateway routes it.
func TestModelNearMissAndUnknown(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	resp, body := send(t, s, "POST", "/chat/completions", map[string]any{"model": "llama-3.3-70b-instruct",
		"messages": []any{map[string]any{"role": "user", "content": "x"}}})
	if resp.StatusCode != 400 || resp.Header.Get("X-Morpheus-Error") != "model_not_found_near_miss" {
		t.Errorf("near miss: status %d, X-Morpheus-Error %q", resp.StatusCode, resp.Header.Get("X-Morpheus-Error"))
	}
	jsonEqual(t, body, `{"error":{"message":"Model 'llama-3.3-70b-instruct' was not found in active models. Did you mean: 'llama-3.3-70b'?",
		"type":"model_not_found","requested_model":"llama-3.3-70b-instruct","suggestions":["llama-3.3-70b"],"code":"model_not_found_near_miss"}}`)

	client := s.Client()
	_, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Model: "text-embedding",
		Input: []string{"Hi"}})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "model_not_found_near_miss" {
		t.Errorf("embeddings near miss: %v", err)
	}
	for _, name := range []string{"gpt-4o", "mistral", "deepseek-v4", "0x" + repeat("ab", 32)} {
		got, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: name,
			Messages: []infergate.Message{infergate.UserMessage("Hi")}})
		if err != nil {
			t.Errorf("%q: %v", name, err)
		} else if got.Model != gatewaytest.DefaultModel {
			t.Errorf("%q: answered by %q, want the default model %q", name, got.Model, gatewaytest.DefaultModel)
		}
	}
}

// The names of the gateway's documentation, as the gateway's catalogue lists them.
var documentedModels = []gatewaytest.CatalogModel{
	{ID: "deepseek-v4-pro"}, {ID: "deepseek-v4-flash"}, {ID: "glm-5.1"}, {ID: "glm-5"}, {ID: "kimi-k2.6"},
	{ID: "MiniMax-M2.7"}, {ID: "minimax-m2.5"}, {ID: "llama-3.3-70b"}, {ID: "llama-3.2-3b"}, {ID: "mistral-31-24b"},
	{ID: "claude-opus-4.8"}, {ID: "GPT-5.5-Pro"}, {ID: "GPT-5.5"}, {ID: "glm-5.1:web"}, {ID: "MiniMax-M2.7:web"},
	{ID: "text-embedding-bge-m3", ModelType: "EMBEDDING"}, {ID: "tts-kokoro", ModelType: "TTS"},
}

// What the gateway's own documentation says its near misses are, and names that reach a model
// by its hex id, without case, by its slug or by their own slug. The suggestions of the last
// four are what Python's difflib gives the gateway's code.
func TestModelResolutionAsDocumented(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(documentedModels...))
	for _, c := range []struct {
		name string
		want []string // the suggestions of a near miss; nil for a name served by a model
	}{
		{"llama-3.3-70b-instruct", []string{"llama-3.3-70b"}},
		{"claude-opus-4-8", []string{"claude-opus-4.8"}},
		{"deepseek-v4", []string{"deepseek-v4-pro", "deepseek-v4-flash"}},
		{"llama-3.3-70b-turbo-instruct-turbo", []string{"llama-3.3-70b", "llama-3.2-3b"}},
		{"glm", []string{"glm-5"}},
		{"gpt-5", []string{"GPT-5.5"}},
		{"minimax-m2.7-web", []string{"MiniMax-M2.7:web", "MiniMax-M2.7", "minimax-m2.5"}},
		{"gpt-4o", nil}, {"kimi-k2.6-thinking", nil}, {"mistral", nil},
		{"GPT 5.5 pro", nil}, {"MINIMAX-M2.7", nil}, {gatewaytest.HexID("glm-5"), nil}, {"  Kimi_K2.6 ", nil},
	} {
		resp, body := send(t, s, "POST", "/chat/completions", map[string]any{"model": c.name,
			"messages": []any{map[string]any{"role": "user", "content": "x"}}})
		m := decode(t, body)
		if c.want == nil {
			if resp.StatusCode != 200 {
				t.Errorf("%q: status %d: %s", c.name, resp.StatusCode, body)
			}
			continue
		}
		e, _ := m["error"].(map[string]any)
		var got []string
		for _, s := range e["suggestions"].([]any) {
			got = append(got, s.(string))
		}
		if resp.StatusCode != 400 || e["requested_model"] != c.name || !slices.Equal(got, c.want) {
			t.Errorf("%q: status %d, suggestions %q, want 400 and %q: %s", c.name, resp.StatusCode, got, c.want, body)
		}
	}
}

// A name or hex id reaches its model, whose catalogue name the answer reports; a name two
// catalogue names slug to is no alias, and a catalogue name wins over another's slug.
func TestModelResolutionByNameHexAndSlug(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "Llama 3.2 3B"}, gatewaytest.CatalogModel{ID: "Big_Model"},
		gatewaytest.CatalogModel{ID: "big model"}, gatewaytest.CatalogModel{ID: "Name One"}, gatewaytest.CatalogModel{ID: "name-one"}))
	client := s.Client()
	for name, want := range map[string]string{
		"Llama 3.2 3B": "Llama 3.2 3B", "llama 3.2 3b": "Llama 3.2 3B", "llama-3.2-3b": "Llama 3.2 3B",
		"LLAMA__3.2  3B": "Llama 3.2 3B", gatewaytest.HexID("Llama 3.2 3B"): "Llama 3.2 3B",
		"big_model": "Big_Model", "BIG MODEL": "big model",
		"name one": "Name One", "name-one": "name-one", "Name_One": "name-one",
	} {
		got, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: name,
			Messages: []infergate.Message{infergate.UserMessage("Hi")}})
		if err != nil {
			t.Errorf("%q: %v", name, err)
		} else if got.Model != want {
			t.Errorf("%q: answered by %q, want %q", name, got.Model, want)
		}
	}
	// Two models claim the slug big-model, so it is no alias: only near both.
	resp, body := send(t, s, "POST", "/chat/completions", map[string]any{"model": "big-model",
		"messages": []any{map[string]any{"role": "user", "content": "x"}}})
	if e, _ := decode(t, body)["error"].(map[string]any); resp.StatusCode != 400 || fmt.Sprint(e["suggestions"]) != "[Big_Model big model]" {
		t.Errorf("big-model: status %d: %s", resp.StatusCode, body)
	}
	// A hex id is matched exactly: in another case it is an unknown name, which the default serves.
	got, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: strings.ToUpper(gatewaytest.HexID("Name One")),
		Messages: []infergate.Message{infergate.UserMessage("Hi")}})
	if err != nil || got.Model != "Llama 3.2 3B" {
		t.Errorf("a hex id in upper case: %v", err)
	}
}

// A model of the wrong type is a 400 model_type_mismatch on both routes.
func TestModelTypeMismatch(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	resp, body := send(t, s, "POST", "/chat/completions", map[string]any{"model": "TEXT-embedding-bge-m3",
		"messages": []any{map[string]any{"role": "user", "content": "x"}}})
	if resp.StatusCode != 400 || resp.Header.Get("X-Morpheus-Error") != "model_type_mismatch" {
		t.Errorf("chat with an embedding model: status %d, X-Morpheus-Error %q", resp.StatusCode, resp.Header.Get("X-Morpheus-Error"))
	}
	jsonEqual(t, body, `{"error":{"message":"Model 'TEXT-embedding-bge-m3' is type 'EMBEDDING' and cannot be used for 'LLM' requests; send it to /api/v1/embeddings.",
		"type":"model_type_mismatch","requested_model":"TEXT-embedding-bge-m3","resolved_model":"text-embedding-bge-m3",
		"resolved_id":"`+gatewaytest.HexID("text-embedding-bge-m3")+`","requested_type":"LLM","model_type":"EMBEDDING","code":"model_type_mismatch"}}`)
	_, err := s.Client().Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Model: gatewaytest.DefaultModel, Input: []string{"Hi"}})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "model_type_mismatch" {
		t.Errorf("embeddings with an LLM: %v", err)
	}
	for _, speech := range []string{gatewaytest.DefaultSpeechModel, gatewaytest.DefaultTranscriptionModel} {
		_, err := s.Client().Chat.Create(context.Background(), infergate.ChatRequest{Model: speech,
			Messages: []infergate.Message{infergate.UserMessage("Hi")}})
		if !errors.As(err, &apiErr) || apiErr.Code != "model_type_mismatch" {
			t.Errorf("chat with %s: %v", speech, err)
		}
	}
	// A model of type UNKNOWN serves any route.
	s = gatewaytest.New(t, gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "mystery", ModelType: "UNKNOWN"}))
	if emb, err := s.Client().Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Model: "mystery", Input: []string{"Hi"}}); err != nil || emb.Model != "mystery" {
		t.Errorf("embeddings with an UNKNOWN model: %v", err)
	}
}

// WithAnyModel serves every name as itself, on the chat, embeddings and session routes.
func TestWithAnyModel(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithAnyModel())
	client := s.Client()
	for _, name := range []string{"llama-3.3-70b-instruct", "gpt-4o", gatewaytest.DefaultSpeechModel} {
		got, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: name,
			Messages: []infergate.Message{infergate.UserMessage("Hi")}})
		if err != nil {
			t.Errorf("chat %q: %v", name, err)
		} else if got.Model != name {
			t.Errorf("chat %q: answered by %q", name, got.Model)
		}
	}
	if emb, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Model: "my-embedder", Input: []string{"Hi"}}); err != nil || emb.Model != "my-embedder" {
		t.Errorf("embeddings: %v", err)
	}
	if _, err := client.Sessions.CreateForModel(context.Background(), "any-model", infergate.SessionOptions{}); err != nil {
		t.Errorf("session: %v", err)
	}
}

// A model that is down fails the requests it serves: those that name it, and those the gateway
// routes to it as its default.
func TestDefaultModelDown(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModelDown(gatewaytest.DefaultModel, gatewaytest.OutageProviderError))
	for _, name := range []string{"", "gpt-4o", strings.ToUpper(gatewaytest.DefaultModel)} {
		resp, _ := send(t, s, "POST", "/chat/completions", map[string]any{"model": name,
			"messages": []any{map[string]any{"role": "user", "content": "x"}}})
		if resp.StatusCode != 502 {
			t.Errorf("%q: status %d, want the outage's 502", name, resp.StatusCode)
		}
	}
	if resp, _ := send(t, s, "POST", "/chat/completions", userMsg("x")); resp.StatusCode != 502 {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// Whatever the name, the chat route answers with a catalogue LLM, or refuses it with one of the
// gateway's two 400s: a near miss naming up to five catalogue names, or a type mismatch naming
// the model of the wrong type.
func TestModelResolutionProperty(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(documentedModels...))
	types := map[string]string{}
	for _, m := range documentedModels {
		types[m.ID] = cmp.Or(m.ModelType, "LLM")
	}
	pieces := []string{"llama", "-3.3", "-70b", "glm", "-5", ".1", ":web", "-turbo", "-instruct", "GPT", " ", "_", "-", "ü", "\x00",
		"deepseek", "-v4", "kimi", "tts", "-kokoro", "text-embedding", "-bge-m3", "0x", "ab", "\xff",
		"tts-kokoro", "TEXT-embedding-bge-m3", "llama-3.3-70b", "MiniMax-M2.7"}
	r := rand.New(rand.NewPCG(4, 1))
	for range 600 {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		name := b.String()
		resp, body := send(t, s, "POST", "/chat/completions", map[string]any{"model": name,
			"messages": []any{map[string]any{"role": "user", "content": "x"}}})
		m := decode(t, body)
		e, _ := m["error"].(map[string]any)
		switch code, _ := e["code"].(string); {
		case resp.StatusCode == 200:
			if model, _ := m["model"].(string); types[model] != "LLM" {
				t.Errorf("%q: answered by %q, not a catalogue LLM", name, model)
			}
		case resp.StatusCode == 400 && code == "model_not_found_near_miss":
			near, _ := e["suggestions"].([]any)
			seen := map[any]bool{}
			for _, n := range near {
				if _, ok := types[fmt.Sprint(n)]; !ok || seen[n] {
					t.Errorf("%q: suggestion %q is not a catalogue name, or named twice", name, n)
				}
				seen[n] = true
			}
			if len(near) == 0 || len(near) > 5 {
				t.Errorf("%q: %d suggestions", name, len(near))
			}
		case resp.StatusCode == 400 && code == "model_type_mismatch":
			if model, _ := e["resolved_model"].(string); types[model] == "" || types[model] == "LLM" {
				t.Errorf("%q: a type mismatch with %q", name, model)
			}
		default:
			t.Errorf("%q: status %d: %s", name, resp.StatusCode, body)
		}
	}
}
