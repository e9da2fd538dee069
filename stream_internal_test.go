package infergate

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

type streamFault struct {
	name     string
	opts     []Option
	handler  func(t *testing.T, hit int64, w http.ResponseWriter, r *http.Request, proceed <-chan struct{})
	wantHits int64
	// openFails, when set, checks the error Stream itself must fail with; otherwise the stream opens
	// and its Err must match every error in wantErr after the chunks in wantText.
	openFails func(error) bool
	wantText  string
	wantErr   []error
	errSays   string
}

const eventStreamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"

func streamHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// TestStreamFaults breaks streams before, at and after their headers and between events. Every
// stream must end with a typed error (ErrStreamTimeout for silences, ErrIncompleteStream once an
// answer had started), keep what had arrived, retry only before the answer began, and leak nothing.
func TestStreamFaults(t *testing.T) {
	t.Parallel()
	quickFirstByte := WithStreamTimeouts(200*time.Millisecond, 5*time.Second)
	quickIdle := WithStreamTimeouts(5*time.Second, 200*time.Millisecond)
	tests := []streamFault{{
		name: "reset before headers is retried, then reported",
		handler: func(t *testing.T, _ int64, w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			conn, _ := hijack(t, w)
			resetConn(conn)
		},
		wantHits:  3,
		openFails: isReset,
	}, {
		name: "reset after headers is sent again before its first delta, then reported",
		handler: func(t *testing.T, _ int64, w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			writeRawThenReset(t, w, eventStreamHead)
		},
		wantHits: 3,
		wantErr:  []error{ErrIncompleteStream},
		errSays:  "stream broken after 0 chunks",
	}, {
		name: "reset mid-event",
		handler: func(t *testing.T, _ int64, w http.ResponseWriter, _ *http.Request, proceed <-chan struct{}) {
			conn, rw := hijack(t, w)
			_, _ = rw.WriteString(eventStreamHead + sseEvents(contentChunk("Hel", "")))
			_ = rw.Flush()
			waitFor(proceed)
			_, _ = rw.WriteString(`data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"lo`)
			_ = rw.Flush()
			resetConn(conn)
		},
		wantHits: 1,
		wantText: "Hel",
		wantErr:  []error{ErrIncompleteStream},
		errSays:  "stream broken after 1 chunk:",
	}, {
		name:      "stall before the first byte",
		opts:      []Option{quickFirstByte},
		handler:   func(_ *testing.T, _ int64, _ http.ResponseWriter, r *http.Request, _ <-chan struct{}) { stall(r) },
		wantHits:  1,
		openFails: matches(ErrStreamTimeout),
	}, {
		name: "headers then nothing",
		opts: []Option{quickFirstByte},
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			streamHeaders(w)
			stall(r)
		},
		wantHits: 1,
		wantErr:  []error{ErrStreamTimeout, ErrIncompleteStream},
		errSays:  "no answer within 200ms",
	}, {
		name: "stall between events",
		opts: []Option{quickIdle},
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			streamHeaders(w)
			_, _ = io.WriteString(w, sseEvents(contentChunk("partial", "")))
			w.(http.Flusher).Flush()
			stall(r)
		},
		wantHits: 1,
		wantText: "partial",
		wantErr:  []error{ErrStreamTimeout, ErrIncompleteStream},
		errSays:  "no data for 200ms",
	}, {
		name: "5xx storm then a full stream",
		handler: func(_ *testing.T, hit int64, w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			if hit <= 2 {
				failWith(http.StatusServiceUnavailable)(w)
				return
			}
			streamHeaders(w)
			_, _ = io.WriteString(w, sseEvents(contentChunk("Hello", ""), contentChunk(" again", "stop"), "[DONE]"))
		},
		wantHits: 3,
		wantText: "Hello again",
	}, {
		name: "Retry-After storm outlasting the retries",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			failWith(http.StatusTooManyRequests, "Retry-After", "0")(w)
		},
		wantHits:  3,
		openFails: matches(ErrRateLimited),
	}, {
		name: "JSON content type with an HTML body",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, htmlPage)
		},
		wantHits: 3, // nothing reached the caller, so it is sent again

		wantErr: []error{ErrIncompleteStream},
		errSays: "502 Bad Gateway",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			proceed := make(chan struct{})
			srv := newCountedServer(t, func(hit int64, w http.ResponseWriter, r *http.Request) { tc.handler(t, hit, w, r, proceed) })
			client, _ := newTestClient(t, srv.URL, tc.opts...)
			within(t, 10*time.Second, func() struct{} { runStreamFault(t, client, tc, proceed); return struct{}{} })
			if got := srv.hits.Load(); got != tc.wantHits {
				t.Errorf("server saw %d requests, want %d", got, tc.wantHits)
			}
		})
	}
}

func matches(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// runStreamFault reads a stream, telling the server through proceed once the first chunk arrived.
func runStreamFault(t *testing.T, client *Client, tc streamFault, proceed chan struct{}) {
	stream, err := client.Chat.Stream(context.Background(), ChatRequest{Messages: []Message{UserMessage("hi")}})
	if tc.openFails != nil {
		if err == nil || !tc.openFails(err) {
			t.Errorf("Stream: got error %v", err)
		}
		return
	}
	if err != nil {
		t.Errorf("Stream: %v", err)
		return
	}
	defer stream.Close()
	firstChunk := sync.OnceFunc(func() { close(proceed) })
	var text strings.Builder
	for stream.Next() {
		text.WriteString(stream.Current().Text())
		firstChunk()
	}
	if text.String() != tc.wantText || stream.Completion().Text() != tc.wantText {
		t.Errorf("received %q (Completion %q), want %q", text.String(), stream.Completion().Text(), tc.wantText)
	}
	err = stream.Err()
	if len(tc.wantErr) == 0 && err != nil {
		t.Errorf("Err: %v", err)
	}
	for _, want := range tc.wantErr {
		if !errors.Is(err, want) {
			t.Errorf("Err %v does not match %v", err, want)
		}
	}
	if err != nil && !strings.Contains(err.Error(), tc.errSays) {
		t.Errorf("Err %q does not say %q", err, tc.errSays)
	}
}

func waitFor(ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
	}
}
