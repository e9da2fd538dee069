package infergate

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// silent accepts the request and never answers, until the client gives up.
func silent(_ int64, w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// trickle answers 200 and then one byte every 20 ms of a body that never ends.
func trickle(_ int64, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "[")
	for {
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
			_, _ = io.WriteString(w, " ")
		}
	}
}

// TestWithTimeoutBoundsEveryPlainCall runs plain calls against a server that never answers and one
// that trickles its body, with context.Background(): each returns once the client's bound is
// spent, with a *TimeoutError naming the bound and matching context.DeadlineExceeded.
func TestWithTimeoutBoundsEveryPlainCall(t *testing.T) {
	checkGoroutines(t)
	calls := map[string]func(context.Context, *Client, ...Option) error{
		"Chat.Create": func(ctx context.Context, c *Client, opts ...Option) error {
			_, err := c.Chat.Create(ctx, ChatRequest{Messages: []Message{UserMessage("x")}}, opts...)
			return err
		},
		"Models.List": func(ctx context.Context, c *Client, opts ...Option) error {
			_, err := c.Models.List(ctx, opts...)
			return err
		},
		"Audio.Transcribe": func(ctx context.Context, c *Client, opts ...Option) error {
			_, err := c.Audio.Transcribe(ctx, TranscriptionRequest{File: strings.NewReader("RIFF"), FileName: "a.wav"}, opts...)
			return err
		},
		"History.List": func(ctx context.Context, c *Client, opts ...Option) error {
			for _, err := range c.History.List(ctx, opts...) {
				return err
			}
			return nil
		},
	}
	servers := map[string]func(int64, http.ResponseWriter, *http.Request){"silent": silent, "trickle": trickle}
	for serverName, handler := range servers {
		srv := newCountedServer(t, handler)
		for name, call := range calls {
			t.Run(serverName+"/"+name, func(t *testing.T) {
				client, _ := newTestClient(t, srv.URL, WithTimeout(300*time.Millisecond))
				start := time.Now()
				err := within(t, 10*time.Second, func() error { return call(context.Background(), client) })
				var bound *TimeoutError
				if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &bound) || bound.Option != "WithTimeout" {
					t.Fatalf("err = %v, want a WithTimeout *TimeoutError matching context.DeadlineExceeded", err)
				}
				if elapsed := time.Since(start); elapsed < 300*time.Millisecond {
					t.Errorf("returned after %v, before the bound", elapsed)
				}

				client, _ = newTestClient(t, srv.URL, WithTimeout(time.Hour))
				err = within(t, 10*time.Second, func() error { return call(context.Background(), client, WithTimeout(200*time.Millisecond)) })
				if !errors.As(err, &bound) || bound.Option != "WithTimeout" || bound.Timeout != 200*time.Millisecond {
					t.Fatalf("err = %v, want the call's WithTimeout *TimeoutError", err)
				}
			})
		}
	}
}

// TestCallerDeadlineIsNotATimeoutError keeps the caller's own deadline distinct from the SDK's
// bounds.
func TestCallerDeadlineIsNotATimeoutError(t *testing.T) {
	srv := newCountedServer(t, silent)
	client, _ := newTestClient(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := client.Models.List(ctx)
	var bound *TimeoutError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &bound) {
		t.Fatalf("err = %v, want the caller's context.DeadlineExceeded", err)
	}
}

// TestDefaultTimeout pins the documented default.
func TestDefaultTimeout(t *testing.T) {
	client, _ := newTestClient(t, "http://127.0.0.1:1")
	if DefaultTimeout != 10*time.Minute || client.cfg.timeout != DefaultTimeout {
		t.Errorf("default timeout %v (DefaultTimeout %v), want 10 minutes", client.cfg.timeout, DefaultTimeout)
	}
}

// TestStreamNotBoundedByWithTimeout streams for longer than WithTimeout: only the stream's own
// silence timeouts apply to it.
func TestStreamNotBoundedByWithTimeout(t *testing.T) {
	checkGoroutines(t)
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		for i := range 10 {
			_, _ = io.WriteString(w, sseEvents(contentChunk("x", map[bool]string{true: "stop"}[i == 9])))
			w.(http.Flusher).Flush()
			time.Sleep(40 * time.Millisecond)
		}
		_, _ = io.WriteString(w, sseEvents("[DONE]"))
	})
	client, _ := newTestClient(t, srv.URL, WithTimeout(150*time.Millisecond))
	text, err := streamText(t.Context(), client, "x")
	if err != nil || text != strings.Repeat("x", 10) {
		t.Fatalf("got %q, %v; want the whole stream", text, err)
	}
}
