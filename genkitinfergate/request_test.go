package genkitinfergate_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/genkitinfergate"
)

const pngDataURL = "data:image/png;base64,iVBORw0KGgo="

// genkit's settings, tool choice, system message and an image reach the request, from the
// caller's config and from the same config as JSON (as genkit's developer UI sends it).
func TestRequestMapping(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	weather := genkit.DefineTool(g, "weather", "The weather in a city.",
		func(_ *ai.ToolContext, in cityInput) (string, error) { return "sunny", nil })
	want := map[string]any{
		"model":       gatewaytest.DefaultModel,
		"temperature": 0.7, "top_p": 0.9, "max_tokens": 64.0, "top_k": 40.0,
		"stop":        []any{"END", "STOP"},
		"tool_choice": "required",
		"messages": []any{
			map[string]any{"role": "system", "content": "Be brief."},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "What is this?"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": pngDataURL}},
			}},
		},
	}
	configs := map[string]any{
		"struct": &ai.GenerationCommonConfig{Temperature: 0.7, TopP: 0.9, MaxOutputTokens: 64, TopK: 40, StopSequences: []string{"END", "STOP"}},
		"map":    map[string]any{"temperature": 0.7, "topP": 0.9, "maxOutputTokens": 64, "topK": 40, "stopSequences": []any{"END", "STOP"}},
	}
	for name, config := range configs {
		srv.Enqueue(gatewaytest.Reply{Content: "a lighthouse"})
		resp, err := generate(g, ai.WithConfig(config), ai.WithTools(weather), ai.WithToolChoice(ai.ToolChoiceRequired), ai.WithSystem("Be brief."),
			ai.WithMessages(ai.NewUserMessage(ai.NewTextPart("What is this?"), ai.NewMediaPart("image/png", pngDataURL))))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if resp.Text() != "a lighthouse" {
			t.Fatalf("%s: answer %q", name, resp.Text())
		}
		last, _ := srv.LastRequest()
		got := map[string]any{}
		for k := range want {
			got[k] = last.JSON[k]
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: request (-want +got):\n%s", name, d)
		}
		if tools, _ := last.JSON["tools"].([]any); len(tools) != 1 {
			t.Fatalf("%s: tools sent: %v", name, last.JSON["tools"])
		}
		for _, k := range []string{"n", "presence_penalty"} {
			if v, ok := last.JSON[k]; ok {
				t.Fatalf("%s: request sends %q: %v", name, k, v)
			}
		}
	}
	srv.Enqueue(gatewaytest.Reply{Content: "ok"}, gatewaytest.Reply{Content: "ok"})
	for _, choice := range []ai.ToolChoice{ai.ToolChoiceNone, ai.ToolChoiceAuto} {
		if _, err := generate(g, ai.WithPrompt("q"), ai.WithToolChoice(choice)); err != nil {
			t.Fatal(err)
		}
		if last, _ := srv.LastRequest(); last.JSON["tool_choice"] != string(choice) {
			t.Fatalf("tool choice %q sent as %v", choice, last.JSON["tool_choice"])
		}
	}
}

// What the chat API has no place for is refused with a *infergate.ValidationError, and nothing is
// sent.
func TestRequestRefused(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	cases := map[string][]ai.GenerateOption{
		"audio":        {ai.WithMessages(ai.NewUserMessage(ai.NewMediaPart("audio/mpeg", "data:audio/mpeg;base64,AAAA")))},
		"data audio":   {ai.WithMessages(ai.NewUserMessage(ai.NewMediaPart("", "data:audio/wav;base64,AAAA")))},
		"no url":       {ai.WithMessages(ai.NewUserMessage(ai.NewMediaPart("image/png", "")))},
		"custom part":  {ai.WithMessages(ai.NewUserMessage(ai.NewCustomPart(map[string]any{"x": 1})))},
		"tool in user": {ai.WithMessages(ai.NewUserMessage(ai.NewToolRequestPart(&ai.ToolRequest{Name: "f"})))},
		"text in tool": {ai.WithMessages(ai.NewUserTextMessage("q"), &ai.Message{Role: ai.RoleTool, Content: []*ai.Part{ai.NewTextPart("x")}})},
		"nil part":     {ai.WithMessages(&ai.Message{Role: ai.RoleUser, Content: []*ai.Part{nil}})},
		"odd role":     {ai.WithMessages(&ai.Message{Role: "narrator", Content: []*ai.Part{ai.NewTextPart("x")}})},
		"config type":  {ai.WithPrompt("q"), ai.WithConfig(42)},
		"config field": {ai.WithPrompt("q"), ai.WithConfig(map[string]any{"temprature": 0.5})},
		"config value": {ai.WithPrompt("q"), ai.WithConfig(map[string]any{"temperature": "hot"})},
		"fields":       {ai.WithMessages(&ai.Message{Role: ai.RoleModel, Content: []*ai.Part{ai.NewTextPart("x")}, Metadata: map[string]any{genkitinfergate.MetadataFields: "not JSON"}})},
		"call fields": {ai.WithMessages(&ai.Message{Role: ai.RoleModel, Content: []*ai.Part{{Kind: ai.PartToolRequest,
			ToolRequest: &ai.ToolRequest{Name: "f"}, Metadata: map[string]any{genkitinfergate.MetadataFields: `{"index":0}`}}}})},
	}
	for name, opts := range cases {
		_, err := generate(g, opts...)
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: error %v, want an *infergate.ValidationError", name, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// Errors keep their types through genkit: errors.As finds the SDK's.
func TestErrors(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusBadRequest, "no such thing"))
	_, err := generate(g, ai.WithPrompt("q"))
	var ae *infergate.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest {
		t.Fatalf("error %v, want an *infergate.APIError with status 400", err)
	}
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusBadRequest, "no such thing"))
	_, _, err = streamed(g, ai.WithPrompt("q"))
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest {
		t.Fatalf("stream error %v, want an *infergate.APIError with status 400", err)
	}
	srv.FailNext(1, rawJSON(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[]}`))
	if _, err := generate(g, ai.WithPrompt("q")); err == nil {
		t.Fatal("an answer without a choice is no error")
	}
	srv.FailNext(1, rawStream(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}`))
	if _, _, err := streamed(g, ai.WithPrompt("q")); err == nil {
		t.Fatal("a stream without a choice is no error")
	}
}

func TestRetriesByDefaultAndWithoutRetries(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "busy").WithRetryAfter(1))
	if _, err := generate(g, ai.WithPrompt("q")); err != nil {
		t.Fatalf("the SDK's retry did not recover: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Idempotency-Key") == "" ||
		reqs[0].Header.Get("Idempotency-Key") != reqs[1].Header.Get("Idempotency-Key") {
		t.Fatalf("%d attempts, want 2 with one idempotency key", len(reqs))
	}

	once, srv := newGenkit(t, genkitinfergate.WithoutRetries(), genkitinfergate.WithCallOptions(infergate.WithHeader("X-Trace", "t1")))
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "busy"))
	if _, err := generate(once, ai.WithPrompt("q")); !errors.Is(err, infergate.ErrServer) {
		t.Fatalf("without retries: %v, want the 503", err)
	}
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "busy"))
	if _, _, err := streamed(once, ai.WithPrompt("q")); !errors.Is(err, infergate.ErrServer) {
		t.Fatalf("stream without retries: %v, want the 503", err)
	}
	reqs = srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("X-Trace") != "t1" || reqs[1].Header.Get("X-Trace") != "t1" {
		t.Fatalf("%d attempts, want 2 with the call option's header", len(reqs))
	}
}

// A call option given to the plugin reaches every call: here fallback models, for a model that is
// down, with and without a stream (which fails before its first delta), each model asked once as
// retries are off.
func TestCallOptionsFallBack(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t, gatewaytest.WithModelDown("broken", gatewaytest.OutageRetryFailed))
	g := genkit.Init(t.Context(), genkit.WithPlugins(genkitinfergate.New(srv.Client(), genkitinfergate.WithoutRetries(),
		genkitinfergate.WithCallOptions(infergate.WithFallbackModels("spare")))))
	srv.Enqueue(gatewaytest.Reply{Content: "from the spare"}, gatewaytest.Reply{Content: "from the spare"})
	resp, err := genkit.Generate(context.Background(), g, ai.WithModelName("infergate/broken"), ai.WithPrompt("q"))
	if err != nil || resp.Text() != "from the spare" {
		t.Fatalf("Generate: %v, %v", resp, err)
	}
	var text string
	resp, err = genkit.Generate(context.Background(), g, ai.WithModelName("infergate/broken"), ai.WithPrompt("q"),
		ai.WithStreaming(func(_ context.Context, c *ai.ModelResponseChunk) error { text += c.Text(); return nil }))
	if err != nil || resp.Text() != "from the spare" || text != "from the spare" {
		t.Fatalf("stream: %q, %v, %v", text, resp, err)
	}
	var models []any
	for _, r := range srv.Requests() {
		models = append(models, r.JSON["model"])
	}
	if d := cmp.Diff([]any{"broken", "spare", "broken", "spare"}, models); d != "" {
		t.Fatalf("models asked (-want +got):\n%s", d)
	}
}
