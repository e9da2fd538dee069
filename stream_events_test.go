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
			if se.Status != tt.status || se.Code != tt.code {
				t.Errorf("Status %d, Code %q; want %d, %q", se.Status, se.Code, tt.status, tt.code)
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
