package infergate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/infergate/infergate-go"
)

// The tests of this file read what a stream's events report beside (or instead of) a chunk: in-band
// errors, their status and redaction, and tool calls that the events' indexes alone do not tell
// apart.

// accumulate folds the data of body's events with a ChatAccumulator, as a proxy would.
func accumulate(t *testing.T, body string) *infergate.ChatCompletion {
	t.Helper()
	var acc infergate.ChatAccumulator
	for _, data := range eventData(body) {
		var chunk infergate.ChatCompletionChunk
		if json.Unmarshal([]byte(data), &chunk) == nil {
			acc.Add(chunk)
		}
	}
	return acc.Completion()
}

func TestStreamErrorsRedactEscapedKey(t *testing.T) {
	t.Parallel()
	const key = "sk-live-SECRETKEY0123456789abcdef"
	escaped := `\u0073k-live-SECRETKEY0123456789abcdef` // JSON for the key, which the raw bytes do not show
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	body := content("x") + ev(`{"error":{"message":"key `+escaped+` rejected","type":"`+escaped+`","code":"`+escaped+`"}}`)
	stream := openStream(t, body, infergate.WithAPIKey(key), infergate.WithLogger(logger))
	for stream.Next() {
	}
	skipped := stream.Skipped()
	if len(skipped) != 1 {
		t.Fatalf("Skipped() = %v, want the error event", skipped)
	}
	for what, text := range map[string]string{
		"Err()": fmt.Sprint(stream.Err()), "Skipped()[0]": fmt.Sprintf("%+v", *skipped[0]), "the log": logs.String(),
	} {
		if strings.Contains(text, key) {
			t.Errorf("%s shows the key: %s", what, text)
		}
	}
	if !strings.Contains(skipped[0].Message, "[redacted]") {
		t.Errorf("Message = %q, want the key redacted", skipped[0].Message)
	}
}

func TestStreamKeepsWhatAnErrorEventCarries(t *testing.T) {
	t.Parallel()
	body := content("Once upon") +
		ev(`{`+head+`,"choices":[{"index":0,"delta":{"content":" a time"},"finish_reason":"length"}],`+
			`"usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9},`+
			`"error":{"message":"max tokens reached","type":"length_error","code":"max_tokens"}}`) + done
	stream := openStream(t, body)
	got := drain(t, stream)
	if got.err != nil {
		t.Errorf("Err() = %v, want nil: the model finished (length)", got.err)
	}
	if skipped := stream.Skipped(); len(skipped) != 1 || skipped[0].Message != "max tokens reached" || skipped[0].Code != "max_tokens" {
		t.Errorf("Skipped() = %v, want the event's error", skipped)
	}
	c := stream.Completion()
	if c.Usage == nil || c.Usage.TotalTokens != 9 || c.Text() != "Once upon a time" || c.FinishReason() != infergate.FinishReasonLength {
		t.Errorf("Completion() = text %q, finish %q, usage %+v; want the error event's choice and usage kept", c.Text(), c.FinishReason(), c.Usage)
	}
	if diff := cmp.Diff(accumulate(t, body), c, cmpopts.IgnoreUnexported(infergate.ChatCompletion{})); diff != "" {
		t.Errorf("the stream and a ChatAccumulator on the same events differ (-accumulator +stream):\n%s", diff)
	}
}

func TestStreamErrorEventWithoutAnswerEndsTheStream(t *testing.T) {
	t.Parallel()
	body := content("Hel") + ev(`{"error":{"message":"overloaded","type":"server_error"},"id":"c1"}`) + done
	got := drain(t, openStream(t, body))
	var se *infergate.StreamError
	if !errors.As(got.err, &se) || se.Message != "overloaded" || !errors.Is(got.err, infergate.ErrIncompleteStream) {
		t.Fatalf("Err() = %v, want the in-band error, incomplete", got.err)
	}
	if got.chunks != 1 {
		t.Errorf("%d chunks, want 1: an error event with no choices nor usage is not a chunk", got.chunks)
	}
}

func TestStreamErrorStatusSpellings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, event string
		status      int
		code        string
		sentinel    error
	}{
		{"status", `{"error":{"message":"m","status":503}}`, 503, "", infergate.ErrServer},
		{"groq status_code", `{"error":{"message":"bad request","type":"invalid_request_error","status_code":400}}`, 400, "", nil},
		{"openrouter numeric code", `{"error":{"code":400,"message":"Provider returned error","metadata":{"raw":"x"}}}`, 400, "400", nil},
		{"numeric code 429", `{"error":{"code":429,"message":"slow down"}}`, 429, "429", infergate.ErrRateLimited},
		{"string code stays a code", `{"error":{"code":"rate_limit_exceeded","message":"slow down"}}`, 0, "rate_limit_exceeded", infergate.ErrRateLimited},
		{"string status", `{"error":{"message":"m","status":"502"}}`, 502, "", infergate.ErrServer},
		{"code that is no status", `{"error":{"code":1001,"message":"m"}}`, 0, "1001", nil},
		{"status wins over code", `{"error":{"code":400,"status":402,"message":"m"}}`, 402, "400", infergate.ErrInsufficientBalance},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := drain(t, openStream(t, content("x")+ev(tt.event)))
			var se *infergate.StreamError
			if !errors.As(got.err, &se) {
				t.Fatalf("Err() = %v, want a *StreamError", got.err)
			}
			if se.StatusCode != tt.status || se.Code != tt.code {
				t.Errorf("Status %d, Code %q; want %d, %q", se.StatusCode, se.Code, tt.status, tt.code)
			}
			if tt.sentinel != nil && !errors.Is(se, tt.sentinel) {
				t.Errorf("%v does not match %v", se, tt.sentinel)
			}
		})
	}
}

func TestStreamNamedErrorEvent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, data string
		want       infergate.StreamError
	}{
		{"bare error object", `{"type":"overloaded_error","message":"Overloaded"}`,
			infergate.StreamError{Type: "overloaded_error", Message: "Overloaded"}},
		{"anthropic envelope", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			infergate.StreamError{Type: "overloaded_error", Message: "Overloaded"}},
		{"plain text", `upstream closed`, infergate.StreamError{Message: "upstream closed"}},
		{"object without a message", `{"reason":"gone"}`, infergate.StreamError{Message: `{"reason":"gone"}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := content("Hel") + "event: error\ndata: " + tt.data + "\n\n" + done
			got := drain(t, openStream(t, body))
			var se *infergate.StreamError
			if !errors.As(got.err, &se) || !errors.Is(got.err, infergate.ErrIncompleteStream) {
				t.Fatalf("Err() = %v, want the error event as the stream's error", got.err)
			}
			tt.want.Raw = tt.data
			if diff := cmp.Diff(tt.want, *se, cmpopts.IgnoreUnexported(infergate.StreamError{})); diff != "" {
				t.Errorf("StreamError (-want +got):\n%s", diff)
			}
			if got.chunks != 1 {
				t.Errorf("%d chunks, want 1: the error event is not a chunk", got.chunks)
			}
		})
	}
}

func TestStreamParallelCallsAtOneIndex(t *testing.T) {
	t.Parallel()
	// As Ollama and several Gemini adapters stream them: every call at index 0, told apart by id.
	body := toolDelta(`{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}`, "") +
		toolDelta(`{"index":0,"function":{"arguments":"{\"city\":"}}`, "") +
		toolDelta(`{"index":0,"id":"call_a","function":{"arguments":"\"Paris\"}"}}`, "") +
		toolDelta(`{"index":0,"id":"call_b","type":"function","function":{"name":"clock","arguments":"{\"tz\":"}}`, "") +
		toolDelta(`{"index":0,"id":"","function":{"arguments":"\"UTC\"}"}}`, "") +
		toolDelta(`{"index":1,"id":"call_c","type":"function","function":{"name":"news","arguments":"{}"}}`, "") +
		finish("tool_calls") + done
	stream := openStream(t, body)
	got := drain(t, stream)
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := []infergate.ToolCall{call("call_a", "weather", `{"city":"Paris"}`), call("call_b", "clock", `{"tz":"UTC"}`), call("call_c", "news", `{}`)}
	if diff := cmp.Diff(want, got.calls); diff != "" {
		t.Errorf("Completion's calls (-want +got):\n%s", diff)
	}
	for i, c := range want {
		if got.args[i] != c.Function.Arguments {
			t.Errorf("call %d: deltas concatenate to %q, want %q", i, got.args[i], c.Function.Arguments)
		}
	}
	if diff := cmp.Diff(accumulate(t, body).ToolCalls(), got.calls); diff != "" {
		t.Errorf("a ChatAccumulator on the same events differs (-accumulator +stream):\n%s", diff)
	}
}

func TestStreamReleasesPlaceholderWithoutFinish(t *testing.T) {
	t.Parallel()
	for _, end := range []string{done, ""} {
		// Straight from the call to a usage chunk and the end: no chunk carries a finish_reason.
		body := toolDelta(`{"index":0,"id":"call_1","type":"function","function":{"name":"now","arguments":""}}`, "") +
			toolDelta(`{"index":0,"function":{"arguments":"{}"}}`, "") +
			ev(`{`+head+`,"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`) + end
		stream := openStream(t, body)
		got := drain(t, stream)
		if end == done && got.err != nil {
			t.Errorf("Err() = %v after [DONE]", got.err)
		}
		if end == "" && !errors.Is(got.err, infergate.ErrIncompleteStream) {
			t.Errorf("Err() = %v at EOF without a finish_reason, want ErrIncompleteStream", got.err)
		}
		if len(got.calls) != 1 || got.calls[0].Function.Arguments != "{}" || got.args[0] != "{}" {
			t.Errorf("end %q: Completion's calls %+v, deltas concatenate to %q; want {} both", end, got.calls, got.args[0])
		}
		if stream.RawEvent() != nil {
			t.Errorf("RawEvent() = %q for the released arguments, want nil", stream.RawEvent())
		}
	}
}

// TestRunToolsParallelCallsAtOneIndex: a tool loop runs both calls of a turn that streams them at
// the same index, each with its own arguments.
func TestRunToolsParallelCallsAtOneIndex(t *testing.T) {
	t.Parallel()
	turns := []string{
		toolDelta(`{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}`, "") +
			toolDelta(`{"index":0,"id":"call_b","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}`, "tool_calls") + done,
		content("done") + finish("stop") + done,
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body := turns[0]
		turns = turns[min(1, len(turns)-1):]
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	var cities []string
	weather, err := infergate.NewTool("weather", "Weather in a city", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		cities = append(cities, in.City)
		return "sunny", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := testClient(t, srv.URL).Chat.RunTools(t.Context(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{weather}}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(cities)
	if !slices.Equal(cities, []string{"Paris", "Rome"}) {
		t.Errorf("the tool ran for %q, want Paris and Rome", cities)
	}
	var answered []string
	for _, m := range res.Messages {
		if m.Role == infergate.RoleTool {
			answered = append(answered, m.ToolCallID)
		}
	}
	if !slices.Equal(answered, []string{"call_a", "call_b"}) {
		t.Errorf("tool results answer %q, want call_a and call_b", answered)
	}
}

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
	if !reflect.DeepEqual(calls, []infergate.ToolCall{call("call_a", "f", `{"x":1}`), call("call_b", "g", `{}`)}) {
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
