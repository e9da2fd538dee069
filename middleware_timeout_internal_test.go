package infergate

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// silent accepts the request and never answers, until the client gives up.
func silent(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// trickle answers 200 and then one byte every 20 ms of a body that never ends.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "[")
	for {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
		}
	}
}

// TestWithTimeoutBoundsEveryPlainCall runs plain calls against a server that never answers and one
// that trickles its body, with context.Background(): each returns exactly when the client's bound
// (or the call's) is spent, with a *TimeoutError naming the bound and matching
// context.DeadlineExceeded.
func TestWithTimeoutBoundsEveryPlainCall(t *testing.T) {
	t.Parallel()
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
		"Audio.SpeakTo": func(ctx context.Context, c *Client, opts ...Option) error {
			_, err := c.Audio.SpeakTo(ctx, io.Discard, SpeechRequest{Input: "x"}, opts...)
			return err
		},
	}
	servers := map[string]http.HandlerFunc{"silent": silent, "trickle": trickle}
	for serverName, handler := range servers {
		for name, call := range calls {
			t.Run(serverName+"/"+name, func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					fake := WithHTTPClient(inProcess{handler}.Client())
					client := testClient(t, "https://gw.test", fake, WithMaxRetries(2), WithTimeout(300*time.Millisecond))
					start := time.Now()
					err := call(context.Background(), client)
					var bound *TimeoutError
					if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &bound) || bound.Bound != "WithTimeout" {
						t.Fatalf("err = %v, want a WithTimeout *TimeoutError matching context.DeadlineExceeded", err)
					}
					if elapsed := time.Since(start); elapsed != 300*time.Millisecond {
						t.Errorf("returned after %v, want the bound, 300ms", elapsed)
					}

					client = testClient(t, "https://gw.test", fake, WithTimeout(time.Hour))
					err = call(context.Background(), client, WithTimeout(200*time.Millisecond))
					if !errors.As(err, &bound) || bound.Bound != "WithTimeout" || bound.Timeout != 200*time.Millisecond {
						t.Fatalf("err = %v, want the call's WithTimeout *TimeoutError", err)
					}
				})
			})
		}
	}
}

// TestCallerDeadlineIsNotATimeoutError keeps the caller's own deadline distinct from the SDK's
// bounds.
func TestCallerDeadlineIsNotATimeoutError(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		client := testClient(t, "https://gw.test", WithHTTPClient(inProcess{http.HandlerFunc(silent)}.Client()))
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := client.Models.List(ctx)
		var bound *TimeoutError
		if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &bound) {
			t.Fatalf("err = %v, want the caller's context.DeadlineExceeded", err)
		}
	})
}

// TestDefaultTimeout pins the documented default.
func TestDefaultTimeout(t *testing.T) {
	t.Parallel()
	client, _ := newTestClient(t, "http://127.0.0.1:1")
	if DefaultTimeout != 10*time.Minute || client.cfg.timeout != DefaultTimeout {
		t.Errorf("default timeout %v (DefaultTimeout %v), want 10 minutes", client.cfg.timeout, DefaultTimeout)
	}
}

// TestStreamNotBoundedByWithTimeout streams for longer than WithTimeout: only the stream's own
// silence timeouts apply to it.
func TestStreamNotBoundedByWithTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		server := inProcess{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			streamHeaders(w)
			for i := range 10 {
				_, _ = io.WriteString(w, sseEvents(contentChunk("x", map[bool]string{true: "stop"}[i == 9])))
				time.Sleep(40 * time.Millisecond)
			}
			_, _ = io.WriteString(w, sseEvents("[DONE]"))
		})}
		client := testClient(t, "https://gw.test", WithHTTPClient(server.Client()), WithTimeout(150*time.Millisecond))
		start := time.Now()
		text, err := streamText(context.Background(), client, "x")
		if err != nil || text != strings.Repeat("x", 10) || time.Since(start) < 400*time.Millisecond {
			t.Fatalf("got %q, %v after %v; want the whole stream, 400ms", text, err, time.Since(start))
		}
	})
}
