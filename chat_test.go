package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/infergate/infergate-go"
	"github.com/jarcoal/httpmock"
)

// capture records the JSON body and headers of each request and answers with body.
func capture(body string, bodies *[]map[string]any, headers *[]http.Header) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		raw, _ := io.ReadAll(req.Body)
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		*bodies = append(*bodies, m)
		*headers = append(*headers, req.Header.Clone())
		return httpmock.NewStringResponse(200, body), nil
	}
}

func TestCreateRequestShape(t *testing.T) {
	t.Parallel()
	weather := infergate.Tool{Function: infergate.FunctionDefinition{Name: "weather", Description: "Current weather", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
	}}}
	tests := []struct {
		name    string
		opts    []infergate.Option
		req     infergate.ChatRequest
		want    map[string]any
		wantHdr map[string]string
	}{
		{
			name: "minimal: unset fields are left out",
			req:  hello(),
			want: map[string]any{"model": "llama-3.3-70b", "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
		},
		{
			name: "zero values are sent, stop is a list, session from the request wins",
			opts: []infergate.Option{infergate.WithSessionID("0xclient")},
			req: infergate.ChatRequest{
				Messages: []infergate.Message{infergate.SystemMessage("be brief"), infergate.UserMessage("hi")},
				Model:    "m", Temperature: infergate.Ptr(0.0), TopP: infergate.Ptr(0.0), N: infergate.Ptr(1),
				PresencePenalty: infergate.Ptr(0.0), FrequencyPenalty: infergate.Ptr(-2.0), MaxTokens: infergate.Ptr(10),
				Stop: []string{"END"}, SessionID: "0xrequest",
			},
			want: map[string]any{
				"model": "m", "temperature": 0.0, "top_p": 0.0, "n": 1.0, "presence_penalty": 0.0,
				"frequency_penalty": -2.0, "max_tokens": 10.0, "stop": []any{"END"}, "session_id": "0xrequest",
				"messages": []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": "hi"}},
			},
		},
		{
			name: "session from the client",
			opts: []infergate.Option{infergate.WithSessionID("0xclient")},
			req:  infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("hi")}},
			want: map[string]any{"session_id": "0xclient", "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
		},
		{
			name: "tools with a named tool choice, images, tool results",
			req: infergate.ChatRequest{
				Messages: []infergate.Message{
					infergate.UserMessageParts(infergate.TextPart("what city?"), infergate.ImageURLPart("https://example.com/a.png"), infergate.ImageURLPart("https://example.com/b.jpg")),
					{Role: infergate.RoleAssistant, ToolCalls: []infergate.ToolCall{{ID: "c1", Type: "function", Function: infergate.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}}},
					infergate.ToolResultMessage("c1", "sunny"),
				},
				Tools:      []infergate.Tool{weather},
				ToolChoice: infergate.ToolChoiceFunction("weather"),
			},
			want: map[string]any{
				"messages": []any{
					map[string]any{"role": "user", "content": []any{
						map[string]any{"type": "text", "text": "what city?"},
						map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/a.png"}},
						map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/b.jpg"}},
					}},
					map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "weather", "arguments": `{"city":"Paris"}`}}}},
					map[string]any{"role": "tool", "content": "sunny", "tool_call_id": "c1"},
				},
				"tools": []any{map[string]any{"type": "function", "function": map[string]any{
					"name": "weather", "description": "Current weather",
					"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
				}}},
				"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "weather"}},
			},
		},
		{
			name:    "tool choice mode and custom header",
			opts:    []infergate.Option{infergate.WithHeader("X-Trace", "t1")},
			req:     infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("hi")}, Tools: []infergate.Tool{weather}, ToolChoice: infergate.ToolChoiceRequired},
			wantHdr: map[string]string{"X-Trace": "t1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mock := mockClient(t, tt.opts...)
			var bodies []map[string]any
			var headers []http.Header
			mock.RegisterResponder(http.MethodPost, chatURL, capture(okCompletion, &bodies, &headers))
			if _, err := c.Chat.Create(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			if len(bodies) != 1 {
				t.Fatalf("%d requests, want 1", len(bodies))
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, bodies[0]); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			}
			h := headers[0]
			if h.Get("Authorization") != "Bearer sk-secret-key" || h.Get("Content-Type") != "application/json" {
				t.Errorf("headers: Authorization %q, Content-Type %q", h.Get("Authorization"), h.Get("Content-Type"))
			}
			for k, v := range tt.wantHdr {
				if h.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
				}
			}
		})
	}
}

func TestCreateDecodesDeployedResponse(t *testing.T) {
	t.Parallel()
	body := `{"id":"chatcmpl-1","object":"chat.completion","created":1747074286,"model":"llama-3.3-70b",
	"choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning_content":"hmm","tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},"logprobs":null,"finish_reason":"tool_calls","content_filter_results":{"hate":{"filtered":false}}}],
	"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},
	"usage_from_provider":{"prompt_tokens":11,"completion_tokens":5,"total_tokens":16},
	"usage_from_consumer":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}`
	c, mock := mockClient(t)
	mock.RegisterResponder(http.MethodPost, chatURL, status(200, body))
	got, err := c.Chat.Create(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	want := &infergate.ChatCompletion{
		ID: "chatcmpl-1", Object: "chat.completion", Created: 1747074286, Model: "llama-3.3-70b",
		Choices: []infergate.Choice{{Message: infergate.Message{Role: infergate.RoleAssistant, Reasoning: "hmm", ToolCalls: []infergate.ToolCall{
			{ID: "call_1", Type: "function", Function: infergate.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}},
		}}, FinishReason: infergate.FinishReasonToolCalls}},
		Usage:             &infergate.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
		UsageFromProvider: &infergate.Usage{PromptTokens: 11, CompletionTokens: 5, TotalTokens: 16},
		UsageFromConsumer: &infergate.Usage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(infergate.ChatCompletion{})); diff != "" {
		t.Errorf("completion (-want +got):\n%s", diff)
	}
	if len(got.RawJSON()) == 0 || !json.Valid(got.RawJSON()) {
		t.Errorf("RawJSON = %q, want the body as received", got.RawJSON())
	}
	if got.UsageOrEstimate().TotalTokens != 15 {
		t.Errorf("UsageOrEstimate prefers usage: got %+v", got.UsageOrEstimate())
	}
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	_ = json.Unmarshal(out, &back)
	choice := back["choices"].([]any)[0].(map[string]any)
	if choice["finish_reason"] != "tool_calls" || choice["message"].(map[string]any)["tool_calls"] == nil || back["usage_from_provider"] == nil {
		t.Errorf("marshalled form lost wire names: %s", out)
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	one := []infergate.Message{infergate.UserMessage("hi")}
	tests := []struct {
		name  string
		req   infergate.ChatRequest
		field string
	}{
		{"no messages", infergate.ChatRequest{}, "Messages"},
		{"temperature above 2", infergate.ChatRequest{Messages: one, Temperature: infergate.Ptr(2.5)}, "Temperature"},
		{"temperature below 0", infergate.ChatRequest{Messages: one, Temperature: infergate.Ptr(-0.1)}, "Temperature"},
		{"top_p above 1", infergate.ChatRequest{Messages: one, TopP: infergate.Ptr(1.5)}, "TopP"},
		{"presence penalty", infergate.ChatRequest{Messages: one, PresencePenalty: infergate.Ptr(-3.0)}, "PresencePenalty"},
		{"frequency penalty", infergate.ChatRequest{Messages: one, FrequencyPenalty: infergate.Ptr(2.1)}, "FrequencyPenalty"},
		{"five stop sequences", infergate.ChatRequest{Messages: one, Stop: []string{"a", "b", "c", "d", "e"}}, "Stop"},
		{"n zero", infergate.ChatRequest{Messages: one, N: infergate.Ptr(0)}, "N"},
		{"max tokens zero", infergate.ChatRequest{Messages: one, MaxTokens: infergate.Ptr(0)}, "MaxTokens"},
		{"no role", infergate.ChatRequest{Messages: []infergate.Message{{Content: "x"}}}, "Messages[0].Role"},
		{"tool result without call id", infergate.ChatRequest{Messages: []infergate.Message{{Role: infergate.RoleTool, Content: "x"}}}, "Messages[0].ToolCallID"},
		{"ftp image", infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessageParts(infergate.ImageURLPart("ftp://x/a.png"))}}, "Messages[0].Parts[0].ImageURL.URL"},
		{"data URI of a PDF", infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessageParts(infergate.ImageURLPart("data:application/pdf;base64,JVBERi0xLjQKJcfs"))}}, "Messages[0].Parts[0].ImageURL.URL"},
		{"data URI with the wrong type", infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessageParts(infergate.ImageURLPart("data:image/jpeg;base64,iVBORw0KGgoAAAANSUhEUg=="))}}, "Messages[0].Parts[0].ImageURL.URL"},
		{"tool without name", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: ""}}}}, "Tools[0].Function.Name"},
		{"tool with a bad name", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "get weather"}}}}, "Tools[0].Function.Name"},
		{"tool with non-object parameters", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f", Parameters: []string{"x"}}}}}, "Tools[0].Function.Parameters"},
		{"tool with raw non-object parameters", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f", Parameters: json.RawMessage(` ["x"]`)}}}}, "Tools[0].Function.Parameters"},
		{"tool with null parameters", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f", Parameters: json.RawMessage(`null`)}}}}, "Tools[0].Function.Parameters"},
		{"tool with broken raw parameters", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f", Parameters: json.RawMessage(`{"type":`)}}}}, "Tools[0].Function.Parameters"},
		{"tool with parameters that cannot be encoded", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f", Parameters: map[string]any{"bad": math.NaN()}}}}}, "Tools[0].Function.Parameters"},
		{"tool of another type", infergate.ChatRequest{Messages: one, Tools: []infergate.Tool{{Type: "retrieval"}}}, "Tools[0].Type"},
		{"choice of a missing function", infergate.ChatRequest{Messages: one, ToolChoice: infergate.ToolChoiceFunction("nope")}, "ToolChoice"},
		{"required without tools", infergate.ChatRequest{Messages: one, ToolChoice: infergate.ToolChoiceRequired}, "ToolChoice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mock := mockClient(t)
			_, err := c.Chat.Create(context.Background(), tt.req)
			var verr *infergate.ValidationError
			if !errors.As(err, &verr) || verr.Field != tt.field {
				t.Fatalf("err = %v, want a ValidationError on %s", err, tt.field)
			}
			if _, err := c.Chat.Stream(context.Background(), tt.req); !errors.As(err, &verr) {
				t.Errorf("Stream accepted what Create refused: %v", err)
			}
			if mock.GetTotalCallCount() != 0 {
				t.Errorf("%d requests were sent for an invalid request", mock.GetTotalCallCount())
			}
		})
	}
}

// captured is what the mock saw of one request.
type captured struct {
	url, auth, tenant string
	body              map[string]any
}

func TestAccessorsNeverPanic(t *testing.T) {
	t.Parallel()
	var empty infergate.ChatCompletion
	if empty.Text() != "" || empty.ToolCalls() != nil || empty.Reasoning() != "" || empty.FinishReason() != "" {
		t.Error("accessors of a completion without choices")
	}
	full := infergate.ChatCompletion{Choices: []infergate.Choice{{FinishReason: "tool_calls",
		Message: infergate.Message{Reasoning: "r", ToolCalls: []infergate.ToolCall{{ID: "a"}}}}}}
	if full.ToolCalls()[0].ID != "a" || full.Reasoning() != "r" || full.FinishReason() != infergate.FinishReasonToolCalls {
		t.Errorf("accessors of %+v", full)
	}
}

func TestCompletionMessage(t *testing.T) {
	t.Parallel()
	calls := []infergate.ToolCall{{ID: "call_1", Type: "function", Function: infergate.FunctionCall{Name: "f", Arguments: "{}"}}}
	full := &infergate.ChatCompletion{Choices: []infergate.Choice{
		{Message: infergate.Message{Content: "Hi", Reasoning: "think", ToolCalls: calls}},
		{Index: 1, Message: infergate.Message{Role: infergate.RoleAssistant, Content: "second"}},
	}}
	for _, tt := range []struct {
		name string
		c    *infergate.ChatCompletion
		want infergate.Message
	}{
		{"nil completion", nil, infergate.Message{Role: infergate.RoleAssistant}},
		{"no choice", &infergate.ChatCompletion{}, infergate.Message{Role: infergate.RoleAssistant}},
		{"first choice, role filled in", full, infergate.Message{Role: infergate.RoleAssistant, Content: "Hi", Reasoning: "think", ToolCalls: calls}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.c.Message()); diff != "" {
				t.Errorf("Message() (-want +got):\n%s", diff)
			}
		})
	}
	m := full.Message()
	m.ToolCalls[0].ID = "changed"
	if full.Choices[0].Message.ToolCalls[0].ID != "call_1" {
		t.Error("changing Message().ToolCalls changed the completion")
	}
}

func TestCreateKeepsEverything(t *testing.T) {
	t.Parallel()
	body := `{"id":"c","object":"chat.completion","model":"m","vendor_field":{"a":1},"choices":[{"index":0,
		"message":{"role":"assistant","content":[{"type":"thinking","thinking":"mull"},{"type":"text","text":"Hel"},{"type":"text","text":"lo"}],
		"reasoning":"r","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"a":[1,2]}}}]},
		"logprobs":{"content":[{"token":"Hel","logprob":-0.1,"bytes":[72],"top_logprobs":[]}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"completion_tokens_details":{"reasoning_tokens":1}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	got, err := testClient(t, srv.URL).Chat.Create(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	m := got.Choices[0].Message
	if got.Text() != "Hello" || m.Reasoning != "rmull" || m.Parts != nil {
		t.Errorf("text %q reasoning %q parts %+v", got.Text(), m.Reasoning, m.Parts)
	}
	if !jsonEqual(m.ToolCalls[0].Function.Arguments, `{"a":[1,2]}`) {
		t.Errorf("arguments = %q", m.ToolCalls[0].Function.Arguments)
	}
	if got.Choices[0].Logprobs == nil || got.Usage.CompletionTokensDetails.ReasoningTokens != 1 {
		t.Errorf("logprobs %+v usage %+v", got.Choices[0].Logprobs, got.Usage)
	}
	if string(got.RawJSON()) != body {
		t.Errorf("RawJSON is not the body as received")
	}
}

func TestReasoningIsSentBack(t *testing.T) {
	t.Parallel()
	out, err := json.Marshal(infergate.Message{Role: infergate.RoleAssistant, Content: "ok", Reasoning: "because"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"reasoning_content":"because"`) {
		t.Errorf("assistant message = %s, want reasoning_content", out)
	}
	out, _ = json.Marshal(infergate.UserMessage("hi"))
	if strings.Contains(string(out), "reasoning") {
		t.Errorf("a message without reasoning sends %s", out)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every accessor of a result is safe on a nil result, as a caller holding the nil of a failed call
// may call it: each exported method without arguments is called through reflection, so a method
// added later is covered too.
func TestAccessorsOfNilResults(t *testing.T) {
	t.Parallel()
	for _, v := range []any{(*infergate.ChatCompletion)(nil), (*infergate.Health)(nil), (*infergate.SessionStatus)(nil)} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumMethod() {
			m := rv.Type().Method(i)
			if m.Type.NumIn() != 1 { // the receiver alone
				continue
			}
			t.Run(fmt.Sprintf("%s.%s", rv.Type().Elem().Name(), m.Name), func(t *testing.T) {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("panicked on a nil receiver: %v", p)
					}
				}()
				for _, out := range rv.Method(i).Call(nil) {
					if !out.IsZero() && out.Type() != reflect.TypeFor[infergate.Message]() {
						t.Errorf("= %v, want the zero value", out)
					}
				}
			})
		}
	}
}

// A nil stream, as a failed Stream returns, answers every method without panicking: it has no
// chunk, and its Err (and All's one pair) says it is nil rather than passing for a complete answer.
func TestNilStream(t *testing.T) {
	t.Parallel()
	var st *infergate.ChatStream
	rv := reflect.ValueOf(st)
	for i := range rv.NumMethod() {
		m := rv.Type().Method(i)
		if m.Type.NumIn() != 1 {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("panicked on a nil receiver: %v", p)
				}
			}()
			rv.Method(i).Call(nil)
		})
	}
	if st.Next() || st.Err() == nil || st.Completion() != nil || st.Close() != nil || st.Message().Role != infergate.RoleAssistant {
		t.Errorf("nil stream: Next %v, Err %v, Completion %v", st.Next(), st.Err(), st.Completion())
	}
	var pairs []error
	for chunk, err := range st.All() {
		if !reflect.ValueOf(chunk).IsZero() {
			t.Errorf("All handed out a chunk: %+v", chunk)
		}
		pairs = append(pairs, err)
	}
	if len(pairs) != 1 || pairs[0] == nil || !strings.Contains(pairs[0].Error(), "nil *ChatStream") {
		t.Errorf("All on a nil stream yielded %v; want one error", pairs)
	}
}

// go-cmp compares requests holding a tool choice without options: the choice's fields are
// unexported, and its Equal method stands for them.
func TestToolChoiceComparesWithCmp(t *testing.T) {
	t.Parallel()
	a := infergate.ChatRequest{Model: "m", ToolChoice: infergate.ToolChoiceFunction("weather")}
	b := infergate.ChatRequest{Model: "m", ToolChoice: infergate.ToolChoiceFunction("weather")}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("equal requests differ:\n%s", diff)
	}
	b.ToolChoice = infergate.ToolChoiceAuto
	if cmp.Equal(a, b) {
		t.Error("requests with different tool choices compare equal")
	}
}

// TestCreateAnswerOwnsItsText overwrites the body RawJSON returns: the answer's strings, decoded
// from it without escapes or with them, must stay as they were.
func TestCreateAnswerOwnsItsText(t *testing.T) {
	t.Parallel()
	body := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"line one\nline \"two\" \u00e9","reasoning_content":"plain"},"finish_reason":"stop"}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	got, err := testClient(t, srv.URL).Chat.Create(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	raw := got.RawJSON()
	for i := range raw {
		raw[i] = 'x'
	}
	m := got.Choices[0].Message
	if got.ID != "chatcmpl-1" || got.Model != "m" || m.Content != "line one\nline \"two\" é" || m.Reasoning != "plain" ||
		m.Role != infergate.RoleAssistant || got.Choices[0].FinishReason != infergate.FinishReasonStop {
		t.Errorf("after the body was overwritten: id %q model %q content %q reasoning %q role %q finish %q",
			got.ID, got.Model, m.Content, m.Reasoning, m.Role, got.Choices[0].FinishReason)
	}
}
