package lcinfergate_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

func TestMessagesAndOptionsReachTheRequest(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "llama-3.3-70b")
	png := []byte("\x89PNG\r\n\x1a\n")
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Be brief."),
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
			llms.TextPart("What is this?"),
			llms.ImageURLWithDetailPart("https://example.com/cat.png", "low"),
			llms.BinaryPart("image/png", png),
		}},
	}
	generate(t, llm, msgs,
		llms.WithModel("qwen-2.5"), llms.WithTemperature(0.25), llms.WithTopP(0.5), llms.WithMaxTokens(64),
		llms.WithStopWords([]string{"END"}), llms.WithSeed(7), llms.WithTopK(3), llms.WithN(2),
		llms.WithFrequencyPenalty(0.5), llms.WithPresencePenalty(-0.5), llms.WithThinkingMode(llms.ThinkingModeHigh),
		llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{
			Name: "look", Description: "Looks.", Parameters: map[string]any{"type": "object"}, Strict: true}}}),
		llms.WithToolChoice(llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: "look"}}))
	got := lastRequest(t, s).JSON
	want := map[string]any{
		"model": "qwen-2.5",
		"messages": []any{
			map[string]any{"role": "system", "content": "Be brief."},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "What is this?"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/cat.png", "detail": "low"}},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}},
			}},
		},
		"temperature": 0.25, "top_p": 0.5, "max_tokens": 64.0, "stop": []any{"END"}, "seed": 7.0, "top_k": 3.0,
		"n": 2.0, "frequency_penalty": 0.5, "presence_penalty": -0.5, "reasoning_effort": "high",
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "look", "description": "Looks.", "parameters": map[string]any{"type": "object"}, "strict": true}}},
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "look"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestToolChoiceForms(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "")
	tools := llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "f", Parameters: map[string]any{"type": "object"}}}})
	for _, tc := range []struct {
		choice any
		want   any
	}{
		{"none", "none"}, {"auto", "auto"}, {"required", "required"}, {"any", "required"},
		{"f", map[string]any{"type": "function", "function": map[string]any{"name": "f"}}},
		{&llms.ToolChoice{Type: "auto"}, "auto"},
		{(*llms.ToolChoice)(nil), nil},
	} {
		generate(t, llm, []llms.MessageContent{human("hi")}, tools, llms.WithToolChoice(tc.choice))
		if got := lastRequest(t, s).JSON["tool_choice"]; !cmp.Equal(got, tc.want) {
			t.Errorf("WithToolChoice(%#v) sent %v, want %v", tc.choice, got, tc.want)
		}
	}
}

// TestOddInputIsAnErrorNotAPanic: what the adapter cannot send is refused before anything is sent,
// with a *infergate.ValidationError, as the SDK refuses what breaks the API's rules.
func TestOddInputIsAnErrorNotAPanic(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "", nil)
	ctx := context.Background()
	refused := func(what string, err error) {
		t.Helper()
		var valErr *infergate.ValidationError
		if !errors.As(err, &valErr) {
			t.Errorf("%s: err = %v, want an *infergate.ValidationError", what, err)
		}
	}
	for name, msgs := range map[string][]llms.MessageContent{
		"unknown role":         {{Role: "narrator", Parts: []llms.ContentPart{llms.TextPart("x")}}},
		"image in system":      {{Role: llms.ChatMessageTypeSystem, Parts: []llms.ContentPart{llms.ImageURLPart("https://x")}}},
		"audio bytes":          {{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.BinaryPart("audio/wav", []byte{1})}}},
		"tool call for user":   {{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.ToolCall{ID: "c"}}}},
		"call without func":    {human("x"), {Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: "c"}}}},
		"image from the model": {human("x"), {Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ImageURLPart("https://x")}}},
		"text as tool result":  {{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.TextPart("x")}}},
		"empty tool message":   {{Role: llms.ChatMessageTypeTool}},
		"result without id":    {{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{Name: "f"}}}},
		"no messages":          nil,
		"nil part":             {{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{nil}}},
	} {
		_, err := llm.GenerateContent(ctx, msgs)
		refused(name, err)
	}
	_, err := llm.GenerateContent(ctx, []llms.MessageContent{human("x")}, llms.WithTools([]llms.Tool{{Type: "retrieval"}}))
	refused("a tool that is not a function", err)
	_, err = llm.GenerateContent(ctx, []llms.MessageContent{human("x")}, llms.WithToolChoice(42))
	refused("a tool choice of type int", err)
	if err == nil || !strings.Contains(err.Error(), "int") {
		t.Errorf("a tool choice of type int: err = %v, want one naming the type", err)
	}
	_, err = llm.GenerateContent(ctx, []llms.MessageContent{human("x")}, llms.WithJSONMode(),
		llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "f"}}}))
	refused("JSON mode with tools", err)
	var none *lcinfergate.LLM
	_, err = none.GenerateContent(ctx, []llms.MessageContent{human("x")})
	refused("a nil LLM", err)
	_, err = lcinfergate.New(nil, "m").CreateEmbedding(ctx, []string{"x"})
	refused("an LLM without a client", err)
	if len(s.Requests()) != 0 {
		t.Errorf("%d requests sent for input that cannot be sent", len(s.Requests()))
	}
}

func TestSeveralChoicesAndUsage(t *testing.T) {
	t.Parallel()
	for _, streamed := range []bool{false, true} {
		s := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{
			Content: "one", Reasoning: "hm", Usage: &gatewaytest.Usage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12},
			MoreChoices: []gatewaytest.Reply{{Content: "two", FinishReason: "length"}},
		}))
		opts := []llms.CallOption{llms.WithN(2)}
		if streamed {
			opts = append(opts, streaming(new([]string)))
		}
		resp := generate(t, lcinfergate.New(s.Client(), ""), []llms.MessageContent{human("count")}, opts...)
		if len(resp.Choices) != 2 {
			t.Fatalf("streamed=%v: %d choices, want 2", streamed, len(resp.Choices))
		}
		c0, c1 := resp.Choices[0], resp.Choices[1]
		if c0.Content != "one" || c0.ReasoningContent != "hm" || c0.StopReason != "stop" || c1.Content != "two" || c1.StopReason != "length" {
			t.Errorf("streamed=%v: choices = %+v, %+v", streamed, c0, c1)
		}
		info := c0.GenerationInfo
		for k, want := range map[string]any{"PromptTokens": 5, "CompletionTokens": 7, "TotalTokens": 12, "ThinkingContent": "hm",
			"ReasoningTokens": 0, "PromptCachedTokens": 0} {
			if info[k] != want {
				t.Errorf("streamed=%v: GenerationInfo[%q] = %#v, want %#v", streamed, k, info[k], want)
			}
		}
		if u := llms.ExtractThinkingTokens(info); u == nil {
			t.Error("llms.ExtractThinkingTokens found nothing in GenerationInfo")
		}
	}
}

func TestErrorsKeepTheirTypes(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "")
	msgs := []llms.MessageContent{human("hi")}

	s.FailNext(1, gatewaytest.DetailErrorReply(400, "bad request"))
	_, err := llm.GenerateContent(context.Background(), msgs)
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Errorf("a 400: err = %v, want an *infergate.APIError with status 400", err)
	}

	s.Enqueue(gatewaytest.Reply{Content: "never finished", Quirks: gatewaytest.Quirks{
		InBandError: &gatewaytest.StreamErrorEvent{After: 3, Message: "provider died"}}})
	_, err = llm.GenerateContent(context.Background(), msgs, streaming(new([]string)))
	var streamErr *infergate.StreamError
	if !errors.As(err, &streamErr) || streamErr.Message != "provider died" {
		t.Errorf("an in-band error: err = %v, want an *infergate.StreamError", err)
	}

	_, err = llm.GenerateContent(context.Background(), msgs, llms.WithTemperature(9))
	var valErr *infergate.ValidationError
	if !errors.As(err, &valErr) {
		t.Errorf("a temperature of 9: err = %v, want an *infergate.ValidationError", err)
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	msgs := []llms.MessageContent{human("hi")}
	unavailable := gatewaytest.DetailErrorReply(503, "busy")

	s := gatewaytest.New(t, gatewaytest.WithFailures(1, unavailable))
	resp := generate(t, lcinfergate.New(s.Client(), ""), msgs)
	reqs := s.Requests()
	if len(reqs) != 2 || resp.Choices[0].Content == "" {
		t.Fatalf("by default: %d requests, answer %q; want the SDK's retry to answer", len(reqs), resp.Choices[0].Content)
	}
	if k := reqs[0].Header.Get("Idempotency-Key"); k == "" || k != reqs[1].Header.Get("Idempotency-Key") {
		t.Errorf("idempotency keys %q and %q, want one key for both attempts", k, reqs[1].Header.Get("Idempotency-Key"))
	}

	s = gatewaytest.New(t, gatewaytest.WithFailures(1, unavailable))
	_, err := lcinfergate.New(s.Client(), "", lcinfergate.WithoutRetries()).GenerateContent(context.Background(), msgs)
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || len(s.Requests()) != 1 {
		t.Errorf("WithoutRetries: err = %v after %d requests, want the 503 after one", err, len(s.Requests()))
	}
}

func TestInBandErrorBeforeTheFirstDeltaIsRetried(t *testing.T) {
	t.Parallel()
	failing := gatewaytest.Reply{Quirks: gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{Message: "provider failed"}}}
	s := gatewaytest.New(t, gatewaytest.WithReplies(failing, gatewaytest.Reply{Chunks: []string{"fine"}}))
	var got []string
	resp := generate(t, lcinfergate.New(s.Client(), ""), []llms.MessageContent{human("hi")}, streaming(&got))
	if resp.Choices[0].Content != "fine" || strings.Join(got, "") != "fine" || len(s.Requests()) != 2 {
		t.Errorf("answer %q, streamed %q after %d requests; want the stream sent again", resp.Choices[0].Content, got, len(s.Requests()))
	}

	s = gatewaytest.New(t, gatewaytest.WithReplies(failing))
	_, err := lcinfergate.New(s.Client(), "", lcinfergate.WithoutRetries()).GenerateContent(context.Background(),
		[]llms.MessageContent{human("hi")}, streaming(new([]string)))
	var streamErr *infergate.StreamError
	if !errors.As(err, &streamErr) || len(s.Requests()) != 1 {
		t.Errorf("WithoutRetries: err = %v after %d requests, want the *infergate.StreamError after one", err, len(s.Requests()))
	}
}

func TestCallOptionsReachThrough(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModelDown("down-model", gatewaytest.OutageProviderError))
	llm := lcinfergate.New(s.Client(), "down-model",
		lcinfergate.WithCallOptions(infergate.WithFallbackModels("llama-3.3-70b"), infergate.WithHeader("X-Trace", "abc")))
	for _, opts := range [][]llms.CallOption{nil, {streaming(new([]string))}} {
		resp := generate(t, llm, []llms.MessageContent{human("hi")}, opts...)
		last := lastRequest(t, s)
		if last.JSON["model"] != "llama-3.3-70b" || last.Header.Get("X-Trace") != "abc" || resp.Choices[0].Content == "" {
			t.Errorf("last request for %v with X-Trace %q; answer %q", last.JSON["model"], last.Header.Get("X-Trace"), resp.Choices[0].Content)
		}
	}
}

func TestCatalogueHexID(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "llama-3.3-70b"}))
	hex := gatewaytest.HexID("llama-3.3-70b")
	resp := generate(t, lcinfergate.New(s.Client(), hex), []llms.MessageContent{human("hi")})
	if got := lastRequest(t, s).JSON["model"]; got != hex || resp.Choices[0].Content == "" {
		t.Errorf("model sent %v, answer %q", got, resp.Choices[0].Content)
	}
}

func TestStreamingFunctions(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "")
	s.Enqueue(gatewaytest.Reply{Reasoning: "let me think", Chunks: []string{"Hel", "lo", "!"}})
	var content []string
	var reasoning, both []string
	resp := generate(t, llm, []llms.MessageContent{human("hi")}, streaming(&content),
		llms.WithStreamingReasoningFunc(func(_ context.Context, r, c []byte) error {
			reasoning = append(reasoning, string(r))
			both = append(both, string(c))
			return nil
		}))
	if got := strings.Join(content, "|"); got != "Hel|lo|!" {
		t.Errorf("StreamingFunc got %q", got)
	}
	if strings.Join(reasoning, "") != "let me think" || strings.Join(both, "") != "Hello!" {
		t.Errorf("StreamingReasoningFunc got reasoning %q and content %q", reasoning, both)
	}
	if c := resp.Choices[0]; c.Content != "Hello!" || c.ReasoningContent != "let me think" {
		t.Errorf("choice %+v", c)
	}
	if req := lastRequest(t, s); req.JSON["stream"] != true {
		t.Errorf("streaming functions without a streamed request: %s", req.Body)
	}

	stop := errors.New("enough")
	s.Enqueue(gatewaytest.Reply{Chunks: []string{"a", "b", "c"}})
	calls := 0
	_, err := llm.GenerateContent(context.Background(), []llms.MessageContent{human("hi")},
		llms.WithStreamingFunc(func(context.Context, []byte) error { calls++; return stop }))
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a streaming function's error: err = %v after %d calls, want it after 1", err, calls)
	}
}

func TestJSONMode(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{Content: "I cannot decide.", Usage: &gatewaytest.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}},
		gatewaytest.Reply{Content: "Sure! Here it is:\n```json\n{\"city\": \"Paris\", \"n\": 2}\n```",
			Usage: &gatewaytest.Usage{PromptTokens: 10, CompletionTokens: 20, TotalTokens: 30}},
	))
	var streamed []string
	resp := generate(t, lcinfergate.New(s.Client(), ""), []llms.MessageContent{human("a city as JSON")},
		llms.WithJSONMode(), streaming(&streamed))
	want := `{"city": "Paris", "n": 2}`
	if got := resp.Choices[0].Content; got != want {
		t.Errorf("Content = %q, want %q", got, want)
	}
	if !json.Valid([]byte(resp.Choices[0].Content)) || strings.Join(streamed, "") != want {
		t.Errorf("streamed %q", streamed)
	}
	if got := resp.Choices[0].GenerationInfo["TotalTokens"]; got != 33 {
		t.Errorf("TotalTokens = %v, want 33, both turns'", got)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want a repair turn after the answer without JSON", len(reqs))
	}
	for _, r := range reqs {
		if _, ok := r.JSON["response_format"]; ok {
			t.Errorf("response_format sent, which the gateway drops: %s", r.Body)
		}
		if turns := r.Turns(); turns[0].Role != "system" || !strings.Contains(turns[0].Content, "JSON") {
			t.Errorf("first turn %+v, want a system message asking for JSON", turns[0])
		}
	}
}

func TestCancelledMidStream(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Chunks: []string{"a", "b", "c", "d"}}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	_, err := lcinfergate.New(s.Client(), "").GenerateContent(ctx, []llms.MessageContent{human("hi")},
		llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			got = append(got, string(chunk))
			cancel()
			return nil
		}))
	if !errors.Is(err, context.Canceled) || len(got) != 1 {
		t.Errorf("err = %v after %q, want context.Canceled after the first piece", err, got)
	}
}

func TestFunctionsAreTools(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	generate(t, lcinfergate.New(s.Client(), ""), []llms.MessageContent{human("hi")},
		llms.WithFunctions([]llms.FunctionDefinition{{Name: "legacy", Parameters: map[string]any{"type": "object"}}}))
	tools, _ := lastRequest(t, s).JSON["tools"].([]any)
	if len(tools) != 1 || !strings.Contains(fmt.Sprint(tools[0]), "legacy") {
		t.Errorf("tools sent: %v, want the function as a tool", tools)
	}
}

// llms.WithFunctionCallBehavior, the older spelling of a tool choice that langchaingo's OpenAI
// adapter sends, is the tool choice when WithToolChoice gives none.
func TestFunctionCallBehavior(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "")
	fns := llms.WithFunctions([]llms.FunctionDefinition{{Name: "legacy", Parameters: map[string]any{"type": "object"}}})
	for _, tc := range []struct {
		opts []llms.CallOption
		want any
	}{
		{[]llms.CallOption{llms.WithFunctionCallBehavior(llms.FunctionCallBehaviorNone)}, "none"},
		{[]llms.CallOption{llms.WithFunctionCallBehavior(llms.FunctionCallBehaviorAuto)}, "auto"},
		{[]llms.CallOption{llms.WithFunctionCallBehavior(llms.FunctionCallBehaviorNone), llms.WithToolChoice("required")}, "required"},
	} {
		generate(t, llm, []llms.MessageContent{human("hi")}, append(tc.opts, fns)...)
		if got := lastRequest(t, s).JSON["tool_choice"]; !cmp.Equal(got, tc.want) {
			t.Errorf("tool_choice sent %v, want %v", got, tc.want)
		}
	}
}

// An llms.ToolChoice of type "function" that names no function is refused: it is not a forced
// call of a tool that happens to be named "function".
func TestToolChoiceFunctionWithoutName(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	tools := llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "function", Parameters: map[string]any{"type": "object"}}}})
	for _, choice := range []any{llms.ToolChoice{Type: "function"}, &llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{}}} {
		_, err := lcinfergate.New(s.Client(), "").GenerateContent(context.Background(), []llms.MessageContent{human("hi")}, tools, llms.WithToolChoice(choice))
		var valErr *infergate.ValidationError
		if !errors.As(err, &valErr) || valErr.Field != "ToolChoice" {
			t.Errorf("WithToolChoice(%+v): err = %v, want an *infergate.ValidationError on ToolChoice", choice, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// Cached and reasoning tokens reach GenerationInfo under the OpenAI adapter's keys, and
// llms.ExtractThinkingTokens reads them, from an answer and from a stream's last chunk.
func TestUsageDetails(t *testing.T) {
	t.Parallel()
	const usage = `{"prompt_tokens":100,"completion_tokens":40,"total_tokens":140,"prompt_tokens_details":{"cached_tokens":64,"audio_tokens":2},"completion_tokens_details":{"reasoning_tokens":30,"audio_tokens":3,"accepted_prediction_tokens":4,"rejected_prediction_tokens":5}}`
	head := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":`
	answer := gatewaytest.ErrorReply{Status: 200, Body: `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
		"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":` + usage + `}`}
	stream := gatewaytest.ErrorReply{Status: 200, ContentType: "text/event-stream", Body: "data: " + head +
		`[{"index":0,"delta":{"role":"assistant","content":"ok"}}]}` + "\n\ndata: " + head +
		`[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: " + head + `[],"usage":` + usage + "}\n\ndata: [DONE]\n\n"}
	want := map[string]any{"PromptTokens": 100, "CompletionTokens": 40, "TotalTokens": 140, "PromptCachedTokens": 64,
		"PromptAudioTokens": 2, "ReasoningTokens": 30, "ThinkingTokens": 30, "CompletionReasoningTokens": 30,
		"CompletionAudioTokens": 3, "CompletionAcceptedPredictionTokens": 4, "CompletionRejectedPredictionTokens": 5}
	for _, streamed := range []bool{false, true} {
		s := gatewaytest.New(t)
		var opts []llms.CallOption
		if streamed {
			s.FailNext(1, stream)
			opts = append(opts, streaming(new([]string)))
		} else {
			s.FailNext(1, answer)
		}
		info := generate(t, lcinfergate.New(s.Client(), ""), []llms.MessageContent{human("hi")}, opts...).Choices[0].GenerationInfo
		for k, v := range want {
			if info[k] != v {
				t.Errorf("streamed=%v: GenerationInfo[%q] = %#v, want %d", streamed, k, info[k], v)
			}
		}
		if u := llms.ExtractThinkingTokens(info); u == nil || u.ThinkingTokens != 30 {
			t.Errorf("streamed=%v: llms.ExtractThinkingTokens = %+v, want 30 thinking tokens", streamed, u)
		}
	}
}
