package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/infergate/infergate-go"
)

// serveStream starts a loopback server that answers every request with body, written in pieces of
// `piece` bytes with a flush after each, so that the client sees events split at odd places.
func serveStream(t *testing.T, body string, piece int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for len(body) > 0 {
			n := min(piece, len(body))
			if _, err := w.Write([]byte(body[:n])); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			body = body[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hello() infergate.ChatRequest {
	return infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("hi")}}
}

// ev renders one event the way the gateway frames it.
func ev(json string) string { return "data: " + json + "\n\n" }

const head = `"id":"c1","object":"chat.completion.chunk","created":1,"model":"m"`

func content(text string) string {
	return ev(`{` + head + `,"choices":[{"index":0,"delta":{"content":"` + text + `"},"finish_reason":null}]}`)
}

func toolDelta(calls string, finish string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return ev(`{` + head + `,"choices":[{"index":0,"delta":{"tool_calls":[` + calls + `]},"finish_reason":` + fr + `}]}`)
}

func finish(reason string) string {
	return ev(`{` + head + `,"choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}`)
}

const done = "data: [DONE]\n\n"

type streamResult struct {
	text      string         // concatenated content deltas
	args      map[int]string // concatenated argument deltas per tool-call index, as a user would build them
	calls     []infergate.ToolCall
	finish    infergate.FinishReason
	skipped   int
	err       error
	chunks    int
	completed *infergate.ChatCompletion
}

func drain(t *testing.T, s *infergate.ChatStream) streamResult {
	t.Helper()
	r := streamResult{args: map[int]string{}}
	for s.Next() {
		r.chunks++
		c := s.Current()
		for _, ch := range c.Choices {
			r.text += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				r.args[tc.Index] += tc.Function.Arguments
			}
		}
	}
	r.err = s.Err()
	r.skipped = len(s.Skipped())
	r.completed = s.Completion()
	if len(r.completed.Choices) > 0 {
		r.calls = r.completed.Choices[0].Message.ToolCalls
		r.finish = r.completed.Choices[0].FinishReason
	}
	return r
}

func call(id, name, args string) infergate.ToolCall {
	return infergate.ToolCall{ID: id, Type: "function", Function: infergate.FunctionCall{Name: name, Arguments: args}}
}

func TestStreamQuirks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		body      string
		wantText  string
		wantCalls []infergate.ToolCall
		wantArgs  map[int]string
		wantSkip  int
		wantErr   error // matched with errors.Is; nil means a clean end
	}{
		{
			name: "id and name first, fragments after, finish on the last fragment",
			body: toolDelta(`{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":""}}`, "") +
				toolDelta(`{"index":0,"function":{"arguments":"{\"city\":"}}`, "") +
				toolDelta(`{"index":0,"function":{"arguments":"\"Paris\"}"}}`, "tool_calls") + done,
			wantCalls: []infergate.ToolCall{call("call_1", "weather", `{"city":"Paris"}`)},
			wantArgs:  map[int]string{0: `{"city":"Paris"}`},
		},
		{
			name: "placeholder {} before the real arguments",
			body: toolDelta(`{"index":0,"id":"call_1","type":"function","function":{"name":"weather"}}`, "") +
				toolDelta(`{"index":0,"function":{"arguments":"{}"}}`, "") +
				toolDelta(`{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}`, "") + finish("tool_calls") + done,
			wantCalls: []infergate.ToolCall{call("call_1", "weather", `{"city":"Paris"}`)},
			wantArgs:  map[int]string{0: `{"city":"Paris"}`},
		},
		{
			name: "placeholder {} in the first delta, then real fragments",
			body: toolDelta(`{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":"{}"}}`, "") +
				toolDelta(`{"index":0,"function":{"arguments":"{\"ci"}}`, "") +
				toolDelta(`{"index":0,"function":{"arguments":"ty\":\"Oslo\"}"}}`, "tool_calls") + done,
			wantCalls: []infergate.ToolCall{call("call_1", "weather", `{"city":"Oslo"}`)},
			wantArgs:  map[int]string{0: `{"city":"Oslo"}`},
		},
		{
			name: "a call whose only arguments are {} keeps {}",
			body: toolDelta(`{"index":0,"id":"call_1","type":"function","function":{"name":"now","arguments":"{}"}}`, "") +
				finish("tool_calls") + done,
			wantCalls: []infergate.ToolCall{call("call_1", "now", `{}`)},
			wantArgs:  map[int]string{0: `{}`},
		},
		{
			name: "empty id and type and a repeated name on later fragments",
			body: toolDelta(`{"index":0,"id":"call_9","type":"function","function":{"name":"lookup"}}`, "") +
				toolDelta(`{"index":0,"id":"","type":"","function":{"name":"lookup","arguments":"{\"q\":"}}`, "") +
				toolDelta(`{"index":0,"id":"","type":"","function":{"name":"lookup","arguments":"1}"}}`, "tool_calls") + done,
			wantCalls: []infergate.ToolCall{call("call_9", "lookup", `{"q":1}`)},
			wantArgs:  map[int]string{0: `{"q":1}`},
		},
		{
			name: "parallel calls, one index after another",
			body: toolDelta(`{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}`, "") +
				toolDelta(`{"index":0,"function":{"arguments":"{\"x\":1}"}}`, "") +
				toolDelta(`{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":""}}`, "") +
				toolDelta(`{"index":1,"function":{"arguments":"{\"y\":2}"}}`, "tool_calls") + done,
			wantCalls: []infergate.ToolCall{call("a", "f", `{"x":1}`), call("b", "g", `{"y":2}`)},
			wantArgs:  map[int]string{0: `{"x":1}`, 1: `{"y":2}`},
		},
		{
			name: "whole calls in one delta each, without index",
			body: toolDelta(`{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}`, "") +
				toolDelta(`{"id":"b","type":"function","function":{"name":"g","arguments":"{\"y\":2}"}}`, "tool_calls"),
			wantCalls: []infergate.ToolCall{call("a", "f", `{"x":1}`), call("b", "g", `{"y":2}`)},
			wantArgs:  map[int]string{0: `{"x":1}`, 1: `{"y":2}`},
		},
		{
			name: "missing index on argument fragments extends the current call",
			body: toolDelta(`{"id":"a","type":"function","function":{"name":"f"}}`, "") +
				toolDelta(`{"function":{"arguments":"{\"x\":"}}`, "") +
				toolDelta(`{"function":{"arguments":"true}"}}`, "tool_calls") + done,
			wantCalls: []infergate.ToolCall{call("a", "f", `{"x":true}`)},
			wantArgs:  map[int]string{0: `{"x":true}`},
		},
		{
			name: "in-band error and junk lines are skipped, the answer still completes",
			body: content("Hel") +
				ev(`{"error":{"message":"provider hiccup","type":"provider_error","status":502}}`) +
				"data: provider failed, failover enabled\n\n" +
				`{"error":"raw line without data prefix"}` + "\n\n" +
				content("lo") + finish("stop") + done,
			wantText: "Hello",
			wantSkip: 3,
		},
		{
			name:     "in-band error then the end without finish_reason is a StreamError",
			body:     content("partial") + ev(`{"error":{"message":"upstream died","type":"provider_error","status":null}}`),
			wantText: "partial",
			wantSkip: 1,
			wantErr:  infergate.ErrIncompleteStream,
		},
		{
			name:     "in-band error then [DONE] without finish_reason is a StreamError",
			body:     content("partial") + ev(`{"error":{"message":"upstream died","type":"server_error","status":500}}`) + done,
			wantText: "partial",
			wantSkip: 1,
			wantErr:  infergate.ErrIncompleteStream,
		},
		{
			name:     "[DONE] ends iteration and later bytes are ignored",
			body:     content("a") + finish("stop") + done + content("IGNORED") + "garbage\n\n",
			wantText: "a",
		},
		{
			name:     "EOF after a finish_reason without [DONE] is a clean end",
			body:     content("a") + finish("stop"),
			wantText: "a",
		},
		{
			name:     "silent truncation: EOF without any finish_reason",
			body:     content("a") + content("b"),
			wantText: "ab",
			wantErr:  infergate.ErrIncompleteStream,
		},
		{
			name:     "truncated in the middle of an event",
			body:     content("a") + `data: {"id":"c1","choi`,
			wantText: "a",
			wantSkip: 1,
			wantErr:  infergate.ErrIncompleteStream,
		},
		{
			name: "comments, event/id/retry fields, data without space, heartbeats",
			body: ": keepalive\n\nevent: message\nid: 7\nretry: 1000\n" + "data:" + `{` + head + `,"choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n" +
				"data:\n\n" + "data: \n\n" + content("y") + finish("stop") + done,
			wantText: "xy",
		},
		{
			name:     "CRLF line endings",
			body:     strings.ReplaceAll(content("a")+content("b")+finish("stop")+done, "\n", "\r\n"),
			wantText: "ab",
		},
		{
			name:     "CR line endings",
			body:     strings.ReplaceAll(content("a")+content("b")+finish("stop")+done, "\n", "\r"),
			wantText: "ab",
		},
		{
			name:     "multi-line data event",
			body:     "data: {" + head + ",\ndata: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"m\"},\"finish_reason\":\"stop\"}]}\n\n" + done,
			wantText: "m",
		},
		{
			name:     "last event without its trailing blank line",
			body:     content("a") + strings.TrimSuffix(finish("stop"), "\n\n"),
			wantText: "a",
		},
		{
			name: "error null, empty choices usage chunk, empty deltas and extra keys",
			body: ev(`{`+head+`,"error":null,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null}],"system_fingerprint":""}`) +
				content("z") + finish("stop") +
				ev(`{`+head+`,"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4},"x_extra":{"a":1}}`) + done,
			wantText: "z",
		},
	}
	for _, tt := range tests {
		for _, piece := range []int{1, 7, 64} {
			t.Run(fmt.Sprintf("%s/piece=%d", tt.name, piece), func(t *testing.T) {
				srv := serveStream(t, tt.body, piece)
				stream, err := testClient(t, srv.URL).Chat.Stream(context.Background(), hello())
				if err != nil {
					t.Fatal(err)
				}
				defer stream.Close()
				got := drain(t, stream)
				if got.text != tt.wantText {
					t.Errorf("content = %q, want %q", got.text, tt.wantText)
				}
				if diff := cmp.Diff(tt.wantCalls, got.calls); diff != "" {
					t.Errorf("reassembled calls (-want +got):\n%s", diff)
				}
				if tt.wantArgs != nil {
					if diff := cmp.Diff(tt.wantArgs, got.args); diff != "" {
						t.Errorf("concatenated argument deltas (-want +got):\n%s", diff)
					}
				}
				if got.skipped != tt.wantSkip {
					t.Errorf("skipped %d events, want %d", got.skipped, tt.wantSkip)
				}
				if tt.wantErr == nil && got.err != nil {
					t.Errorf("Err() = %v, want a clean end", got.err)
				}
				if tt.wantErr != nil && !errors.Is(got.err, tt.wantErr) {
					t.Errorf("Err() = %v, want it to match %v", got.err, tt.wantErr)
				}
			})
		}
	}
}

func TestStreamErrorCarriesInBandDetails(t *testing.T) {
	t.Parallel()
	srv := serveStream(t, content("x")+ev(`{"error":{"message":"upstream died","type":"provider_error","status":503,"code":"upstream"}}`), 5)
	stream, err := testClient(t, srv.URL).Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	for stream.Next() {
	}
	var se *infergate.StreamError
	if !errors.As(stream.Err(), &se) {
		t.Fatalf("Err() = %v, want a *StreamError", stream.Err())
	}
	want := infergate.StreamError{Message: "upstream died", Type: "provider_error", Code: "upstream", StatusCode: 503,
		Raw: `{"error":{"message":"upstream died","type":"provider_error","status":503,"code":"upstream"}}`}
	if diff := cmp.Diff(want, *se, cmp.AllowUnexported(infergate.StreamError{}), cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".ended"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("StreamError (-want +got):\n%s", diff)
	}
	if skipped := stream.Skipped(); len(skipped) != 1 || skipped[0].Message != "upstream died" {
		t.Errorf("Skipped() = %v", skipped)
	}
}

func TestStreamHugeLine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("streams a 40 MiB line; CI (.ci/run) runs it without -short")
	}
	big := strings.Repeat("a", infergate.Scaled(40<<20)) // under the race detector 4 MiB, still over the 1 MiB limit below
	body := content(big) + finish("stop") + done
	t.Run("within the default limit", func(t *testing.T) {
		srv := serveStream(t, body, 1<<20)
		stream, err := testClient(t, srv.URL).Chat.Stream(context.Background(), hello())
		if err != nil {
			t.Fatal(err)
		}
		got := drain(t, stream)
		if got.err != nil || len(got.text) != len(big) {
			t.Fatalf("err = %v, content length %d, want %d", got.err, len(got.text), len(big))
		}
	})
	t.Run("over a configured limit", func(t *testing.T) {
		srv := serveStream(t, body, 1<<20)
		stream, err := testClient(t, srv.URL, infergate.WithMaxLineSize(1<<20)).Chat.Stream(context.Background(), hello())
		if err != nil {
			t.Fatal(err)
		}
		got := drain(t, stream)
		if !errors.Is(got.err, infergate.ErrLineTooLong) || !errors.Is(got.err, infergate.ErrIncompleteStream) {
			t.Fatalf("Err() = %v, want ErrLineTooLong and ErrIncompleteStream", got.err)
		}
	})
}

func TestStreamCompletionAndUsage(t *testing.T) {
	t.Parallel()
	body := ev(`{`+head+`,"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}`) +
		ev(`{`+head+`,"choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}],"usage_from_provider":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`) +
		ev(`{`+head+`,"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`) + done
	srv := serveStream(t, body, 3)
	stream, err := testClient(t, srv.URL).Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, stream)
	want := &infergate.ChatCompletion{
		ID: "c1", Object: "chat.completion", Created: 1, Model: "m",
		Choices:           []infergate.Choice{{Index: 0, Message: infergate.Message{Role: infergate.RoleAssistant, Content: "Hi there"}, FinishReason: infergate.FinishReasonStop}},
		Usage:             &infergate.Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7},
		UsageFromProvider: &infergate.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3},
	}
	if diff := cmp.Diff(want, got.completed, cmpopts.IgnoreUnexported(infergate.ChatCompletion{})); diff != "" {
		t.Errorf("Completion() (-want +got):\n%s", diff)
	}
}

func TestStreamRangeOverFunc(t *testing.T) {
	t.Parallel()
	srv := serveStream(t, content("a")+content("b"), 4)
	stream, err := testClient(t, srv.URL).Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	var text string
	var last error
	for chunk, err := range stream.All() {
		if err != nil {
			last = err
			break
		}
		text += chunk.Text()
	}
	if text != "ab" || !errors.Is(last, infergate.ErrIncompleteStream) {
		t.Errorf("text %q, error %v; want \"ab\" and ErrIncompleteStream", text, last)
	}
}

// stallingServer sends one chunk and then waits until the client goes away.
func stallingServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(content("first")))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamStopsPromptly(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Run("context cancellation", func(t *testing.T) {
		srv := stallingServer(t)
		ctx, cancel := context.WithCancel(context.Background())
		stream, err := testClient(t, srv.URL).Chat.Stream(ctx, hello())
		if err != nil {
			t.Fatal(err)
		}
		if !stream.Next() {
			t.Fatalf("first chunk missing: %v", stream.Err())
		}
		cancel()
		if stream.Next() {
			t.Fatal("Next() returned a chunk after cancellation")
		}
		if !errors.Is(stream.Err(), context.Canceled) || !errors.Is(stream.Err(), infergate.ErrIncompleteStream) {
			t.Errorf("Err() = %v, want context.Canceled and ErrIncompleteStream", stream.Err())
		}
	})
	t.Run("Close mid-stream", func(t *testing.T) {
		srv := stallingServer(t)
		stream, err := testClient(t, srv.URL).Chat.Stream(context.Background(), hello())
		if err != nil {
			t.Fatal(err)
		}
		if !stream.Next() {
			t.Fatalf("first chunk missing: %v", stream.Err())
		}
		if err := stream.Close(); err != nil {
			t.Fatal(err)
		}
		if stream.Next() || stream.Err() != nil {
			t.Errorf("after Close: Next() must be false and Err() nil, got %v", stream.Err())
		}
	})
	t.Run("idle timeout", func(t *testing.T) {
		srv := stallingServer(t)
		c := testClient(t, srv.URL, infergate.WithStreamTimeouts(time.Minute, 50*time.Millisecond))
		stream, err := c.Chat.Stream(context.Background(), hello())
		if err != nil {
			t.Fatal(err)
		}
		for stream.Next() {
		}
		if !errors.Is(stream.Err(), infergate.ErrStreamTimeout) {
			t.Errorf("Err() = %v, want ErrStreamTimeout", stream.Err())
		}
		var timeout *infergate.TimeoutError
		if !errors.As(stream.Err(), &timeout) || timeout.Bound != infergate.TimeoutBoundIdle ||
			timeout.Timeout != 50*time.Millisecond || !errors.Is(stream.Err(), context.DeadlineExceeded) {
			t.Errorf("Err() = %v, want an idle *TimeoutError of 50ms matching context.DeadlineExceeded", stream.Err())
		}
	})
	waitForGoroutines(t, before)
}

// waitForGoroutines fails when goroutines started by a test are still running once it is over.
func waitForGoroutines(t *testing.T, before int) {
	t.Helper()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines left behind:\n%s", n-before, buf[:runtime.Stack(buf, true)])
	}
}

// TestStreamSlowButSteady checks that the stream time limits bound silences, not durations: a
// first byte later than the idle limit but within the first-byte limit, then chunks that keep
// coming for several idle limits, make a complete answer.
func TestStreamSlowButSteady(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const idle = 150 * time.Millisecond
		server := infergate.InProcessClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			time.Sleep(3 * idle)
			for i := range 12 {
				_, _ = io.WriteString(w, content(fmt.Sprint(i%10)))
				time.Sleep(idle / 3)
			}
			_, _ = io.WriteString(w, ev(`{`+head+`,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)+"data: [DONE]\n\n")
		}))
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(server), infergate.WithStreamTimeouts(10*idle, idle))
		stream, err := c.Chat.Stream(context.Background(), hello())
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		for stream.Next() {
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("a slow but steady stream failed: %v", err)
		}
		if got, want := stream.Completion().Text(), "012345678901"; got != want {
			t.Errorf("text %q, want %q", got, want)
		}
	})
}

func TestStreamErrorsDoNotEchoTheKey(t *testing.T) {
	t.Parallel()
	const key = "sk-echoed-upstream"
	srv := serveStream(t, content("x")+ev(`{"error":{"message":"key `+key+` rejected upstream","type":"provider_error"}}`), 9)
	stream, err := testClient(t, srv.URL, infergate.WithAPIKey(key)).Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	for stream.Next() {
	}
	if stream.Err() == nil || strings.Contains(stream.Err().Error(), key) || strings.Contains(stream.Skipped()[0].Raw, key) {
		t.Errorf("the API key reached a stream error: %v / %q", stream.Err(), stream.Skipped()[0].Raw)
	}
}
