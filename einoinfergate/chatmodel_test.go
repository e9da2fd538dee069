package einoinfergate_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

var weatherTool = &schema.ToolInfo{Name: "get_weather", Desc: "The weather in a city.",
	ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"city": {Type: schema.String, Desc: "The city.", Required: true},
	})}

var timeTool = &schema.ToolInfo{Name: "get_time", Desc: "The time now."}

func TestNewChatModelRefusesNilClient(t *testing.T) {
	t.Parallel()
	var v *infergate.ValidationError
	if _, err := einoinfergate.NewChatModel(nil, "m"); !errors.As(err, &v) {
		t.Fatalf("NewChatModel(nil): %v, want a *infergate.ValidationError", err)
	}
	if _, err := einoinfergate.NewEmbedder(nil, "m"); !errors.As(err, &v) {
		t.Fatalf("NewEmbedder(nil): %v, want a *infergate.ValidationError", err)
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.Enqueue(gatewaytest.Reply{Content: "Sunny, 21 °C.", Reasoning: "Look it up.",
		ToolCalls: []gatewaytest.ToolCall{{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		Usage:     &gatewaytest.Usage{PromptTokens: 7, CompletionTokens: 5, TotalTokens: 12}})
	got, err := m.Generate(context.Background(), question("Weather in Paris?"))
	if err != nil {
		t.Fatal(err)
	}
	want := &schema.Message{Role: schema.Assistant, Content: "Sunny, 21 °C.", ReasoningContent: "Look it up.",
		ToolCalls: []schema.ToolCall{{Index: infergate.Ptr(0), ID: "call_a", Type: "function",
			Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		ResponseMeta: &schema.ResponseMeta{FinishReason: "tool_calls",
			Usage: &schema.TokenUsage{PromptTokens: 7, CompletionTokens: 5, TotalTokens: 12}},
		Extra: map[string]any{"model": gatewaytest.DefaultModel}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Generate (-want +got):\n%s", d)
	}
	if typ := m.GetType(); typ != "Infergate" || !m.IsCallbacksEnabled() {
		t.Fatalf("GetType %q, IsCallbacksEnabled %v", typ, m.IsCallbacksEnabled())
	}
}

func TestGenerateUsageDetails(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.FailNext(1, rawJSON(`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
		"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,
		"completion_tokens":40,"total_tokens":140,"prompt_tokens_details":{"cached_tokens":64},
		"completion_tokens_details":{"reasoning_tokens":30}}}`))
	got, err := m.Generate(context.Background(), question("q"))
	if err != nil {
		t.Fatal(err)
	}
	want := &schema.TokenUsage{PromptTokens: 100, CompletionTokens: 40, TotalTokens: 140,
		PromptTokenDetails:      schema.PromptTokenDetails{CachedTokens: 64},
		CompletionTokensDetails: schema.CompletionTokensDetails{ReasoningTokens: 30}}
	if d := cmp.Diff(want, got.ResponseMeta.Usage); d != "" {
		t.Fatalf("usage (-want +got):\n%s", d)
	}
}

// The assistant's reasoning goes back with its message on the next turn, with its tool calls and
// the tool's result, as thinking models that call tools need.
func TestReasoningSentBack(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.Enqueue(gatewaytest.Reply{Reasoning: "I need the weather.", Quirks: gatewaytest.Quirks{ReasoningAs: "reasoning"},
		ToolCalls: []gatewaytest.ToolCall{{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
	first, _ := streamed(t, m, question("Weather in Oslo?"))
	if first.ReasoningContent != "I need the weather." {
		t.Fatalf("reasoning %q", first.ReasoningContent)
	}
	history := append(question("Weather in Oslo?"), first, schema.ToolMessage("rain", "call_w"))
	if _, err := m.Generate(context.Background(), history); err != nil {
		t.Fatal(err)
	}
	turns := srv.Requests()[len(srv.Requests())-1].Turns()
	want := []gatewaytest.Turn{
		{Role: "user", Content: "Weather in Oslo?"},
		{Role: "assistant", Reasoning: "I need the weather.",
			ToolCalls: []gatewaytest.ToolCall{{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
		{Role: "tool", Content: "rain", ToolCallID: "call_w"},
	}
	if d := cmp.Diff(want, turns); d != "" {
		t.Fatalf("turns sent (-want +got):\n%s", d)
	}
}

func TestOptionsReachTheRequest(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	bound, err := m.WithTools([]*schema.ToolInfo{weatherTool, timeTool})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts []model.Option
		want map[string]any // the request's fields; nil values must be absent
	}{
		{"none", nil, map[string]any{"model": gatewaytest.DefaultModel, "temperature": nil, "tool_choice": nil}},
		{"sampling", []model.Option{model.WithTemperature(0.7), model.WithTopP(0.9), model.WithMaxTokens(64),
			model.WithStop([]string{"END"}), model.WithModel(gatewaytest.HexID("other"))},
			map[string]any{"temperature": 0.7, "top_p": 0.9, "max_tokens": float64(64), "stop": []any{"END"},
				"model": gatewaytest.HexID("other")}},
		{"forbidden", []model.Option{model.WithToolChoice(schema.ToolChoiceForbidden)}, map[string]any{"tool_choice": "none"}},
		{"allowed", []model.Option{model.WithToolChoice(schema.ToolChoiceAllowed)}, map[string]any{"tool_choice": "auto"}},
		{"forced", []model.Option{model.WithToolChoice(schema.ToolChoiceForced)}, map[string]any{"tool_choice": "required"}},
		{"forced one", []model.Option{model.WithToolChoice(schema.ToolChoiceForced, "get_time")},
			map[string]any{"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "get_time"}}}},
	}
	for _, c := range cases {
		srv.Enqueue(gatewaytest.Reply{Content: "ok"})
		if _, err := bound.Generate(context.Background(), question("q"), c.opts...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sent := srv.Requests()[len(srv.Requests())-1].JSON
		for k, v := range c.want {
			got, ok := sent[k]
			if v == nil {
				if ok {
					t.Errorf("%s: %s sent as %v, want it absent", c.name, k, got)
				}
				continue
			}
			if d := cmp.Diff(v, got); d != "" {
				t.Errorf("%s: %s (-want +got):\n%s", c.name, k, d)
			}
		}
		wantTools := 2
		if c.name == "forced one" {
			wantTools = 1 // forcing one function sends that one alone
		}
		if tools, _ := sent["tools"].([]any); len(tools) != wantTools {
			t.Errorf("%s: %d tools sent, want %d", c.name, len(tools), wantTools)
		}
	}
}

func TestToolsForOneCall(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	bound, err := m.WithTools([]*schema.ToolInfo{weatherTool, timeTool})
	if err != nil {
		t.Fatal(err)
	}
	sentTools := func() []string {
		var names []string
		tools, _ := srv.Requests()[len(srv.Requests())-1].JSON["tools"].([]any)
		for _, tool := range tools {
			names = append(names, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
		}
		return names
	}
	for _, c := range []struct {
		name string
		opts []model.Option
		want []string
	}{
		{"bound", nil, []string{"get_weather", "get_time"}},
		{"replaced", []model.Option{model.WithTools([]*schema.ToolInfo{timeTool})}, []string{"get_time"}},
		{"none", []model.Option{model.WithTools(nil)}, nil},
		{"allowed names", []model.Option{model.WithToolChoice(schema.ToolChoiceAllowed, "get_weather")}, []string{"get_weather"}},
	} {
		srv.Enqueue(gatewaytest.Reply{Content: "ok"})
		if _, err := bound.Generate(context.Background(), question("q"), c.opts...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := cmp.Diff(c.want, sentTools()); d != "" {
			t.Errorf("%s: tools sent (-want +got):\n%s", c.name, d)
		}
	}
	params := srv.Requests()[0].JSON["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)["parameters"]
	wantParams := map[string]any{"type": "object", "required": []any{"city"},
		"properties": map[string]any{"city": map[string]any{"type": "string", "description": "The city."}}}
	if d := cmp.Diff(wantParams, params); d != "" {
		t.Errorf("parameters (-want +got):\n%s", d)
	}
}

func TestWithToolsLeavesTheModelAsItWas(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	tools := []*schema.ToolInfo{weatherTool}
	bound, err := m.WithTools(tools)
	if err != nil {
		t.Fatal(err)
	}
	tools[0] = timeTool // the caller's slice changing later changes nothing either
	if _, err := bound.WithTools([]*schema.ToolInfo{timeTool}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m     model.BaseChatModel
		tools int
		name  string
	}{{m, 0, ""}, {bound, 1, "get_weather"}} {
		srv.Enqueue(gatewaytest.Reply{Content: "ok"})
		if _, err := c.m.Generate(context.Background(), question("q")); err != nil {
			t.Fatal(err)
		}
		sent, _ := srv.Requests()[len(srv.Requests())-1].JSON["tools"].([]any)
		if len(sent) != c.tools {
			t.Fatalf("%d tools sent, want %d", len(sent), c.tools)
		}
		if c.tools > 0 && sent[0].(map[string]any)["function"].(map[string]any)["name"] != c.name {
			t.Fatalf("tool sent %v, want %s", sent[0], c.name)
		}
	}
}

func TestRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	img := "https://example.com/cat.png"
	for _, c := range []struct {
		name  string
		input []*schema.Message
		opts  []model.Option
	}{
		{"nil message", []*schema.Message{nil}, nil},
		{"audio part", []*schema.Message{{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{}}}}}, nil},
		{"image without source", []*schema.Message{{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{}}}}}, nil},
		{"unknown tool named", question("q"), []model.Option{model.WithToolChoice(schema.ToolChoiceForced, "nope")}},
		{"unknown choice", question("q"), []model.Option{model.WithToolChoice("sometimes")}},
		{"nil tool", question("q"), []model.Option{model.WithTools([]*schema.ToolInfo{nil})}},
		{"temperature out of range", question("q"), []model.Option{model.WithTemperature(3)}},
		{"forced without tools", []*schema.Message{{Role: schema.User, MultiContent: []schema.ChatMessagePart{
			{Type: schema.ChatMessagePartTypeImageURL, ImageURL: &schema.ChatMessageImageURL{URL: img}}}}},
			[]model.Option{model.WithToolChoice(schema.ToolChoiceForced)}},
	} {
		_, err := m.Generate(context.Background(), c.input, c.opts...)
		var v *infergate.ValidationError
		if !errors.As(err, &v) {
			t.Errorf("%s: Generate error %v, want a *infergate.ValidationError", c.name, err)
		}
		if _, err := m.Stream(context.Background(), c.input, c.opts...); !errors.As(err, &v) {
			t.Errorf("%s: Stream error %v, want a *infergate.ValidationError", c.name, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent, want none", n)
	}
}

func TestImagesAndParts(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	url, data := "https://example.com/cat.png", "iVBORw0KGgo="
	input := []*schema.Message{{Role: schema.User, Content: "Look:", UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "What is this?"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
			MessagePartCommon: schema.MessagePartCommon{URL: &url}, Detail: schema.ImageURLDetailLow}},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
			MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "image/png"}}},
	}}}
	if _, err := m.Generate(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	content := srv.Requests()[0].JSON["messages"].([]any)[0].(map[string]any)["content"]
	want := []any{
		map[string]any{"type": "text", "text": "Look:"},
		map[string]any{"type": "text", "text": "What is this?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": url, "detail": "low"}},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + data}},
	}
	if d := cmp.Diff(want, content); d != "" {
		t.Fatalf("content sent (-want +got):\n%s", d)
	}
}

func TestErrorsKeepTheirTypes(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.FailNext(3, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "no provider"))
	_, err := m.Generate(context.Background(), question("q"))
	var api *infergate.APIError
	if !errors.As(err, &api) || api.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("Generate error %v, want an *infergate.APIError with status 503", err)
	}
	srv.FailNext(3, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "no provider"))
	if _, err := m.Stream(context.Background(), question("q")); !errors.As(err, &api) || !errors.Is(err, infergate.ErrServer) {
		t.Fatalf("Stream error %v, want an *infergate.APIError matching ErrServer", err)
	}
}

func TestRetriesByDefaultAndWithoutRetries(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "busy"))
	if _, err := m.Generate(context.Background(), question("q")); err != nil {
		t.Fatalf("the SDK's retry did not recover: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Idempotency-Key") == "" ||
		reqs[0].Header.Get("Idempotency-Key") != reqs[1].Header.Get("Idempotency-Key") {
		t.Fatalf("%d attempts, want 2 with one idempotency key", len(reqs))
	}

	once, err := einoinfergate.NewChatModel(srv.Client(), "", einoinfergate.WithoutRetries(),
		einoinfergate.WithCallOptions(infergate.WithHeader("X-Trace", "t1")))
	if err != nil {
		t.Fatal(err)
	}
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "busy"))
	if _, err := once.Generate(context.Background(), question("q")); !errors.Is(err, infergate.ErrServer) {
		t.Fatalf("Generate without retries: %v, want the 503", err)
	}
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "busy"))
	if _, err := once.Stream(context.Background(), question("q")); !errors.Is(err, infergate.ErrServer) {
		t.Fatalf("Stream without retries: %v, want the 503", err)
	}
	reqs = srv.Requests()
	if len(reqs) != 4 || reqs[3].Header.Get("X-Trace") != "t1" {
		t.Fatalf("%d attempts in all, want 4, the last with the call option's header", len(reqs))
	}
}

// A call option given to the model reaches every call: here fallback models, for a model that is
// down, in Generate and in Stream (whose stream fails before its first delta), each model asked
// once as retries are off.
func TestCallOptionsFallBack(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t, gatewaytest.WithModelDown("broken", gatewaytest.OutageRetryFailed))
	m, err := einoinfergate.NewChatModel(srv.Client(), "broken", einoinfergate.WithoutRetries(),
		einoinfergate.WithCallOptions(infergate.WithFallbackModels("spare")))
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(gatewaytest.Reply{Content: "from the spare"}, gatewaytest.Reply{Content: "from the spare"})
	msg, err := m.Generate(context.Background(), question("q"))
	if err != nil || msg.Content != "from the spare" {
		t.Fatalf("Generate: %v, %v", msg, err)
	}
	if got, _ := streamed(t, m, question("q")); got.Content != "from the spare" {
		t.Fatalf("Stream: %q", got.Content)
	}
	var models []any
	for _, r := range srv.Requests() {
		models = append(models, r.JSON["model"])
	}
	if d := cmp.Diff([]any{"broken", "spare", "broken", "spare"}, models); d != "" {
		t.Fatalf("models asked (-want +got):\n%s", d)
	}
}

// Tools whose parameters eino cannot turn into a JSON Schema (a nil ParameterInfo, which eino's
// conversion dereferences) are an error, not a panic; parameters with no schema at all are sent as
// an empty object, as for a tool without parameters, never as null.
func TestOddToolParameters(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	for name, params := range map[string]*schema.ParamsOneOf{
		"nil parameter":        schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"x": nil}),
		"nil nested parameter": schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"x": {Type: schema.Object, SubParams: map[string]*schema.ParameterInfo{"y": nil}}}),
	} {
		tools := []*schema.ToolInfo{{Name: "f", ParamsOneOf: params}}
		var v *infergate.ValidationError
		if _, err := m.WithTools(tools); !errors.As(err, &v) {
			t.Errorf("%s: WithTools error %v, want a *infergate.ValidationError", name, err)
		}
		if _, err := m.Generate(context.Background(), question("q"), model.WithTools(tools)); !errors.As(err, &v) {
			t.Errorf("%s: Generate error %v, want a *infergate.ValidationError", name, err)
		}
	}
	for name, params := range map[string]*schema.ParamsOneOf{
		"no schema":         schema.NewParamsOneOfByJSONSchema(nil),
		"empty ParamsOneOf": {},
	} {
		bound, err := m.WithTools([]*schema.ToolInfo{{Name: "f", ParamsOneOf: params}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		srv.Enqueue(gatewaytest.Reply{Content: "ok"})
		if _, err := bound.Generate(context.Background(), question("q")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sent := srv.Requests()[len(srv.Requests())-1].JSON["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)["parameters"]
		if d := cmp.Diff(map[string]any{"type": "object", "properties": map[string]any{}}, sent); d != "" {
			t.Errorf("%s: parameters sent (-want +got):\n%s", name, d)
		}
	}
}

// A model or embedder not made by its constructor (a zero value, a nil pointer) fails its calls
// with a *infergate.ValidationError instead of panicking.
func TestZeroValuesAreErrorsNotPanics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var v *infergate.ValidationError
	for name, m := range map[string]*einoinfergate.ChatModel{"zero": {}, "nil": nil} {
		if _, err := m.Generate(ctx, question("q")); !errors.As(err, &v) {
			t.Errorf("%s model: Generate error %v, want a *infergate.ValidationError", name, err)
		}
		if _, err := m.Stream(ctx, question("q")); !errors.As(err, &v) {
			t.Errorf("%s model: Stream error %v, want a *infergate.ValidationError", name, err)
		}
		if _, err := m.WithTools([]*schema.ToolInfo{weatherTool}); !errors.As(err, &v) {
			t.Errorf("%s model: WithTools error %v, want a *infergate.ValidationError", name, err)
		}
	}
	for name, e := range map[string]*einoinfergate.Embedder{"zero": {}, "nil": nil} {
		if _, err := e.EmbedStrings(ctx, []string{"x"}); !errors.As(err, &v) {
			t.Errorf("%s embedder: EmbedStrings error %v, want a *infergate.ValidationError", name, err)
		}
	}
}
