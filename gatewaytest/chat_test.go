package gatewaytest_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

func TestChatDefaultAnswerAndShape(t *testing.T) {
	s := gatewaytest.New(t)
	resp, body := send(t, s, "POST", "/chat/completions", map[string]any{
		"messages": []any{
			map[string]any{"role": "system", "content": "be brief"},
			map[string]any{"role": "user", "content": "hello there"},
		},
	})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	jsonEqual(t, body, `{
		"id": "chatcmpl-00000000000000000000000000000001",
		"object": "chat.completion",
		"created": 1760531696,
		"model": "llama-3.3-70b",
		"choices": [{"index": 0, "message": {"role": "assistant",
			"content": "This is the fake gateway's answer to \"hello there\": a real model would answer here."},
			"finish_reason": "stop", "logprobs": null}],
		"usage": {"prompt_tokens": 4, "completion_tokens": 15, "total_tokens": 19},
		"usage_from_provider": {"prompt_tokens": 4, "completion_tokens": 15, "total_tokens": 19},
		"usage_from_consumer": {"prompt_tokens": 4, "completion_tokens": 15, "total_tokens": 19},
		"system_fingerprint": ""
	}`)
}

func TestChatImagesAccepted(t *testing.T) {
	s := gatewaytest.New(t)
	tests := []struct {
		name, url string
		want      int
	}{
		{"https", "https://example.com/cat.png", 200},
		{"data uri", "data:image/png;base64,iVBORw0KGgo=", 200},
		{"plain http", "http://example.com/cat.png", 400},
		{"not an image", "data:text/plain;base64,aGk=", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := send(t, s, "POST", "/chat/completions", map[string]any{
				"model": "qwen2.5-vl-72b",
				"messages": []any{map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "text", "text": "what is"},
					map[string]any{"type": "image_url", "image_url": map[string]any{"url": tt.url}},
					map[string]any{"type": "text", "text": "this?"},
				}}},
			})
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if tt.want == 200 {
				if got := choice0(decode(t, body))["message"].(map[string]any)["content"]; got != gatewaytest.DefaultAnswer("what is this?") {
					t.Errorf("answer = %q, want the default answer to the text parts", got)
				}
				if m := decode(t, body)["model"]; m != "qwen2.5-vl-72b" {
					t.Errorf("model = %v", m)
				}
			} else if errObj := decode(t, body)["error"].(map[string]any); errObj["param"] != "messages" {
				t.Errorf("error = %v", errObj)
			}
		})
	}
}

func TestChatScriptedQueue(t *testing.T) {
	s := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{Content: "one", Model: "provider-model"}))
	s.Enqueue(gatewaytest.Reply{Content: "two", FinishReason: "length",
		Usage: &gatewaytest.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}})
	defer s.Close()
	if s.Pending() != 2 {
		t.Fatalf("Pending = %d", s.Pending())
	}
	var got []string
	for range 3 {
		_, body := send(t, s, "POST", "/chat/completions", userMsg("echo me"))
		m := decode(t, body)
		c := choice0(m)
		got = append(got, c["message"].(map[string]any)["content"].(string)+"/"+c["finish_reason"].(string)+"/"+m["model"].(string))
		if len(got) == 2 && !reflect.DeepEqual(m["usage"], map[string]any{"prompt_tokens": 1.0, "completion_tokens": 2.0, "total_tokens": 3.0}) {
			t.Errorf("usage = %v", m["usage"])
		}
	}
	want := []string{"one/stop/provider-model", "two/length/llama-3.3-70b", gatewaytest.DefaultAnswer("echo me") + "/stop/llama-3.3-70b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replies = %v, want %v", got, want)
	}
}

func TestChatToolCallsNonStreaming(t *testing.T) {
	s := gatewaytest.New(t)
	s.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{ID: "call_a", Name: "weather", Arguments: `{"city":"Paris"}`},
		{Name: "time", Arguments: `{}`},
	}})
	_, body := send(t, s, "POST", "/chat/completions", userMsg("x"))
	c := choice0(decode(t, body))
	if c["finish_reason"] != "tool_calls" {
		t.Errorf("finish_reason = %v", c["finish_reason"])
	}
	msg := c["message"].(map[string]any)
	if v, ok := msg["content"]; !ok || v != nil {
		t.Errorf("content = %v, want null", v)
	}
	want := []any{
		map[string]any{"id": "call_a", "type": "function", "function": map[string]any{"name": "weather", "arguments": `{"city":"Paris"}`}},
		map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "time", "arguments": `{}`}},
	}
	if !reflect.DeepEqual(msg["tool_calls"], want) {
		t.Errorf("tool_calls = %v", msg["tool_calls"])
	}
}

func TestChatValidation(t *testing.T) {
	catalogue := gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "Only-Model"})
	tests := []struct {
		name   string
		opts   []gatewaytest.ServerOption
		body   string
		status int
		want   string
	}{
		{"empty messages", nil, `{"messages":[]}`, 400,
			`{"error":{"message":"'messages' must contain at least one message","type":"invalid_request_error","param":"messages","code":null}}`},
		{"missing messages", nil, `{"model":"m"}`, 422,
			`{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{"model":"m"}}]}`},
		{"not json", nil, `{oops`, 422,
			`{"detail":[{"type":"json_invalid","loc":["body",0],"msg":"JSON decode error","input":{}}]}`},
		{"near miss", []gatewaytest.ServerOption{catalogue}, `{"model":"Only-Modle","messages":[{"role":"user","content":"x"}]}`, 400,
			`{"error":{"message":"Model 'Only-Modle' was not found in active models. Did you mean: 'Only-Model'?","type":"model_not_found",
			"requested_model":"Only-Modle","suggestions":["Only-Model"],"code":"model_not_found_near_miss"}}`},
		{"unknown model goes to the default", []gatewaytest.ServerOption{catalogue}, `{"model":"gpt-4","messages":[{"role":"user","content":"x"}]}`, 200, ""},
		{"name is case-insensitive", []gatewaytest.ServerOption{catalogue}, `{"model":"only-model","messages":[{"role":"user","content":"x"}]}`, 200, ""},
		{"unknown hex id goes to the default", []gatewaytest.ServerOption{catalogue}, `{"model":"0x` + repeat("ab", 32) + `","messages":[{"role":"user","content":"x"}]}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := gatewaytest.New(t, tt.opts...)
			resp, body := call(t, s, "POST", "/chat/completions", gatewaytest.DefaultAPIKey, stringReader(tt.body), "application/json")
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.want != "" {
				jsonEqual(t, body, tt.want)
			}
		})
	}
}

func TestChatDelayNonStreaming(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "slow", Quirks: gatewaytest.Quirks{Delay: 50 * time.Millisecond}}))
	start := time.Now()
	resp, _ := send(t, s, "POST", "/chat/completions", userMsg("x"))
	if d := time.Since(start); resp.StatusCode != 200 || d < 50*time.Millisecond {
		t.Errorf("status %d after %v, want 200 after >= 50ms", resp.StatusCode, d)
	}
}
