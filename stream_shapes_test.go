package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
)

// The shapes below once panicked or were dropped; each test is the minimal stream that showed it.

func streamOf(t *testing.T, body string) (*infergate.ChatStream, streamResult) {
	t.Helper()
	srv := serveStream(t, body, 7)
	stream, err := testClient(t, srv.URL).Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	return stream, drain(t, stream)
}

func TestStreamInterleavedChoices(t *testing.T) {
	t.Parallel()
	_, got := streamOf(t, ev(`{"choices":[{"index":0,"delta":{"content":"A"}}]}`)+
		ev(`{"choices":[{"index":1,"delta":{"content":"B"}}]}`)+
		ev(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)+
		ev(`[DONE]`))
	if got.err != nil {
		t.Fatal(got.err)
	}
	c := got.completed.Choices
	if len(c) != 2 || c[0].Message.Content != "A" || c[1].Message.Content != "B" || c[0].FinishReason != "stop" || c[1].Index != 1 {
		t.Errorf("choices = %+v", c)
	}
}

func TestStreamInterleavedParallelToolCalls(t *testing.T) {
	t.Parallel()
	_, got := streamOf(t, ev(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"x\":"}}]}}]}`)+
		ev(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"g","arguments":"{}"}}]}}]}`)+
		ev(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}`))
	if got.err != nil {
		t.Fatal(got.err)
	}
	calls := got.completed.Choices[0].Message.ToolCalls
	if len(calls) != 2 || calls[0] != call("call_a", "f", `{"x":1}`) || calls[1] != call("call_b", "g", `{}`) {
		t.Errorf("calls = %+v", calls)
	}
}

func TestStreamContentPartsAndReasoning(t *testing.T) {
	t.Parallel()
	stream, got := streamOf(t, ev(`{"choices":[{"index":0,"delta":{"reasoning_content":"r1"}}]}`)+
		ev(`{"choices":[{"index":0,"delta":{"reasoning":"r2"}}]}`)+
		ev(`{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"r3"}]}]}}]}`)+
		ev(`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Hello"}]}}]}`)+
		ev(`{"choices":[{"index":0,"delta":{"content":[{"type":"audio","data":"AAA"},{"type":"text","text":"!"}]},"finish_reason":"stop"}]}`)+
		ev(`[DONE]`))
	if got.err != nil {
		t.Fatal(got.err)
	}
	m := got.completed.Choices[0].Message
	if got.text != "Hello!" || m.Content != "Hello!" || m.Reasoning != "r1r2r3" {
		t.Errorf("text %q, content %q, reasoning %q", got.text, m.Content, m.Reasoning)
	}
	if len(m.Parts) != 3 || m.Parts[0].Text != "Hello" || m.Parts[1].Type != "audio" || string(m.Parts[1].Raw) != `{"type":"audio","data":"AAA"}` || m.Parts[2].Text != "!" {
		t.Errorf("parts = %+v, want the unknown audio part kept between the text", m.Parts)
	}
	if len(stream.Skipped()) != 0 {
		t.Errorf("skipped %v", stream.Skipped())
	}
}

func TestStreamLogprobsUsageDetailsAndRawEvent(t *testing.T) {
	t.Parallel()
	stream := openStream(t, ev(`{"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[{"token":"Hey","logprob":-1.5,"bytes":null}]}]}}],"x_provider":"p1"}`)+
		ev(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":{"city":"Paris"}}}]},"finish_reason":"tool_calls"}]}`)+
		ev(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":2}}}`)+
		ev(`[DONE]`))
	if !stream.Next() || !strings.Contains(string(stream.RawEvent()), `"x_provider":"p1"`) {
		t.Fatalf("RawEvent = %s, want the unmodelled key", stream.RawEvent())
	}
	for stream.Next() {
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	c := stream.Completion()
	lp := c.Choices[0].Logprobs
	if lp == nil || len(lp.Content) != 1 || lp.Content[0].Logprob != -0.5 || len(lp.Content[0].Bytes) != 2 || lp.Content[0].TopLogprobs[0].Token != "Hey" {
		t.Errorf("logprobs = %+v", lp)
	}
	if args := c.Choices[0].Message.ToolCalls[0].Function.Arguments; !jsonEqual(args, `{"city":"Paris"}`) {
		t.Errorf("arguments sent as an object = %q", args)
	}
	u := c.Usage
	if u == nil || u.PromptTokensDetails.CachedTokens != 1 || u.CompletionTokensDetails.ReasoningTokens != 2 {
		t.Errorf("usage = %+v", u)
	}
	out, _ := json.Marshal(c.Choices[0])
	for _, key := range []string{`"logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[{"token":"Hey","logprob":-1.5,"bytes":null}]}]}`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("marshalled choice %s lacks %s", out, key)
		}
	}
	out, _ = json.Marshal(u)
	if !strings.Contains(string(out), `"prompt_tokens_details":{"cached_tokens":1}`) || !strings.Contains(string(out), `"completion_tokens_details":{"reasoning_tokens":2}`) {
		t.Errorf("marshalled usage %s", out)
	}
}

// openStream opens a ChatStream on body, served in small pieces.
func openStream(t *testing.T, body string, opts ...infergate.Option) *infergate.ChatStream {
	t.Helper()
	srv := serveStream(t, body, 5+len(body)/1000)
	stream, err := testClient(t, srv.URL, opts...).Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Close() })
	return stream
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

func TestStreamAnsweredWithJSON(t *testing.T) {
	t.Parallel()
	serve := func(status int, body string) *infergate.Client {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return testClient(t, srv.URL)
	}
	whole := `{"id":"c","object":"chat.completion","created":5,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","tool_calls":[{"id":"k","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	client := serve(200, whole)
	created, err := client.Chat.Create(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	stream, err := client.Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, stream)
	if got.err != nil || got.chunks != 1 || got.text != "Hi" {
		t.Errorf("err %v, %d chunks, text %q", got.err, got.chunks, got.text)
	}
	if !jsonEqual(mustMarshal(t, got.completed), mustMarshal(t, created)) {
		t.Errorf("Completion %s\n!= Create %s", mustMarshal(t, got.completed), mustMarshal(t, created))
	}
	_, err = serve(200, `{"error":{"message":"no balance","type":"billing","code":"insufficient_balance"}}`).Chat.Stream(context.Background(), hello())
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, infergate.ErrInsufficientBalance) {
		t.Errorf("error body answered to a stream: %v", err)
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

func TestStreamSkipsNonObjectsAndStaysBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(content("a"))
	for _, junk := range []string{`"provider failed"`, `null`, `42`, `[1]`, `true`} {
		b.WriteString(ev(junk))
	}
	junk := infergate.Scaled(100_000)
	for range junk {
		b.WriteString("data: provider failed, failover enabled\n\n")
	}
	b.WriteString(finish("stop") + ev(`[DONE]`))
	stream := openStream(t, b.String())
	chunks := 0
	for stream.Next() {
		chunks++
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if chunks != 2 {
		t.Errorf("%d chunks, want the 2 real ones", chunks)
	}
	kept := stream.Skipped()
	if stream.SkippedCount() != junk+5 || len(kept) > 16 || kept[0].Raw != `"provider failed"` || kept[1].Raw != "null" {
		t.Errorf("SkippedCount %d, %d kept, first %v", stream.SkippedCount(), len(kept), kept[:min(2, len(kept))])
	}
}

func TestStreamErrorMatchesSentinels(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status, code string
		want         error
	}{
		{"402", `"insufficient_balance"`, infergate.ErrInsufficientBalance},
		{"null", `"insufficient_balance"`, infergate.ErrInsufficientBalance},
		{"429", "null", infergate.ErrRateLimited},
		{"503", "null", infergate.ErrServer},
	} {
		stream := openStream(t, content("a")+ev(`{"error":{"message":"m","type":"t","status":`+tt.status+`,"code":`+tt.code+`}}`))
		for stream.Next() {
		}
		err := stream.Err()
		if !errors.Is(err, tt.want) || !errors.Is(err, infergate.ErrIncompleteStream) {
			t.Errorf("status %s code %s: %v does not match %v", tt.status, tt.code, err, tt.want)
		}
		if errors.Is(err, infergate.ErrUnauthorized) {
			t.Errorf("status %s matches ErrUnauthorized", tt.status)
		}
	}
}

// TestChatAccumulatorFoldsDecodedChunks folds chunks decoded with json.Unmarshal, as a proxy would,
// including fragments without an index, and leaves the caller's chunks untouched.
func TestChatAccumulatorFoldsDecodedChunks(t *testing.T) {
	t.Parallel()
	events := []string{
		`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","reasoning":"think "}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"","function":{"name":"f","arguments":"{\"q\":1}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
	}
	var acc infergate.ChatAccumulator
	for i, e := range events {
		var chunk infergate.ChatCompletionChunk
		if err := json.Unmarshal([]byte(e), &chunk); err != nil {
			t.Fatal(err)
		}
		before := mustMarshal(t, chunk)
		cleaned := acc.Add(chunk)
		if mustMarshal(t, chunk) != before {
			t.Errorf("chunk %d was modified by Add", i)
		}
		for _, tc := range cleaned.Choices[0].Delta.ToolCalls {
			if tc.Index < 0 {
				t.Errorf("chunk %d: unresolved index in %+v", i, tc)
			}
		}
	}
	m := acc.Completion().Choices[0].Message
	if !acc.Finished() || m.Reasoning != "think " || len(m.ToolCalls) != 2 ||
		m.ToolCalls[0] != call("a", "f", `{"q":1}`) || m.ToolCalls[1] != call("b", "g", "{}") {
		t.Errorf("completion message = %+v", m)
	}
}

// TestStreamOnlyDone: a stream that sends nothing but [DONE] has an empty assistant message, not
// a panic, and so has a stream that is nil.
func TestStreamOnlyDone(t *testing.T) {
	t.Parallel()
	stream := openStream(t, done)
	for stream.Next() {
		t.Errorf("a chunk came: %+v", stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
	want := infergate.Message{Role: infergate.RoleAssistant}
	var none *infergate.ChatStream
	for what, got := range map[string]infergate.Message{
		"stream.Message()": stream.Message(), "stream.Completion().Message()": stream.Completion().Message(), "nil stream's Message()": none.Message(),
	} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %+v, want %+v", what, got, want)
		}
	}
}

func TestStreamMessage(t *testing.T) {
	t.Parallel()
	stream := openStream(t, ev(`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"hm"}}]}`)+content("Hi")+
		toolDelta(`{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}`, "tool_calls")+done)
	for stream.Next() {
	}
	want := infergate.Message{Role: infergate.RoleAssistant, Content: "Hi", Reasoning: "hm", ToolCalls: []infergate.ToolCall{call("call_1", "f", "{}")}}
	if got := stream.Message(); !reflect.DeepEqual(got, want) {
		t.Errorf("Message() = %+v, want %+v", got, want)
	}
}
