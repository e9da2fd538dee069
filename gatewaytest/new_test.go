package gatewaytest_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// cleanupTB stands in for the test New is given, to run its cleanups on demand and keep its errors.
type cleanupTB struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (c *cleanupTB) Helper()          {}
func (c *cleanupTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }
func (c *cleanupTB) Errorf(format string, args ...any) {
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}

func (c *cleanupTB) cleanup() {
	for _, f := range slices.Backward(c.cleanups) {
		f()
	}
}

func TestNewReportsUnusedFailures(t *testing.T) {
	tb := &cleanupTB{TB: t}
	s := gatewaytest.New(tb, gatewaytest.WithFailures(1, gatewaytest.DetailErrorReply(503, "used")))
	s.FailNext(2, gatewaytest.RateLimitErrorReply(0).On("/api/v1/chat/completions"))
	s.FailNext(1, gatewaytest.DetailErrorReply(500, "typo").On("/api/v1/chat/completion"))
	s.FailNext(1, gatewaytest.DetailErrorReply(502, "anywhere"))
	if resp, _ := send(t, s, "GET", "/models", nil); resp.StatusCode != 503 {
		t.Fatalf("first request: %d, want the failure given at construction", resp.StatusCode)
	}
	if resp, _ := send(t, s, "POST", "/chat/completions", userMsg("hi")); resp.StatusCode != 429 {
		t.Fatalf("chat: %d, want one of the two 429s", resp.StatusCode)
	}
	if len(tb.errors) != 0 {
		t.Fatalf("errors before cleanup: %q", tb.errors)
	}
	tb.cleanup()
	want := []string{
		"gatewaytest: 1 injected failure with status 429 on /api/v1/chat/completions never used",
		"gatewaytest: 1 injected failure with status 500 on /api/v1/chat/completion never used",
		"gatewaytest: 1 injected failure with status 502 on any route never used",
	}
	if !slices.Equal(tb.errors, want) {
		t.Errorf("errors at cleanup:\n%q\nwant\n%q", tb.errors, want)
	}
	if _, err := http.Get(s.URL() + "/health"); err == nil {
		t.Error("the server still answers after cleanup")
	}
}

func TestNewIsQuietWhenEveryFailureIsUsed(t *testing.T) {
	tb := &cleanupTB{TB: t}
	s := gatewaytest.New(tb)
	s.FailNext(2, gatewaytest.DetailErrorReply(503, "busy").On("/api/v1/models"))
	if _, err := s.Client().Models.List(context.Background()); err != nil {
		t.Fatalf("two 503s then success within the default two retries: %v", err)
	}
	tb.cleanup()
	if len(tb.errors) != 0 {
		t.Errorf("errors at cleanup: %q", tb.errors)
	}
}

// waitLog keeps the waits the SDK logs before each retry.
type waitLog struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (w *waitLog) Enabled(context.Context, slog.Level) bool { return true }
func (w *waitLog) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *waitLog) WithGroup(string) slog.Handler            { return w }
func (w *waitLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "wait" {
			w.mu.Lock()
			w.waits = append(w.waits, a.Value.Duration())
			w.mu.Unlock()
		}
		return true
	})
	return nil
}

func TestClientWaitsMillisecondsBeforeRetrying(t *testing.T) {
	tests := []struct {
		name     string
		reply    gatewaytest.ErrorReply
		opts     []infergate.Option
		min, max time.Duration
	}{
		{"a 429 without Retry-After, default backoff", gatewaytest.RateLimitErrorReply(0), nil, 0, 10 * time.Millisecond},
		{"a 503, default backoff", gatewaytest.DetailErrorReply(503, "busy"), nil, 0, 10 * time.Millisecond},
		{"the caller's backoff wins", gatewaytest.DetailErrorReply(503, "busy"),
			[]infergate.Option{infergate.WithRetryBackoff(40*time.Millisecond, 40*time.Millisecond)}, 20 * time.Millisecond, 40 * time.Millisecond},
		{"a Retry-After in milliseconds is honoured", gatewaytest.RateLimitErrorReply(7 * time.Millisecond), nil, 7 * time.Millisecond, 7 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := gatewaytest.New(t)
			s.FailNext(1, tt.reply.On("/api/v1/chat/completions"))
			log := &waitLog{}
			opts := append([]infergate.Option{infergate.WithLogger(slog.New(log))}, tt.opts...)
			if _, err := s.Client(opts...).Chat.Create(context.Background(), infergate.ChatRequest{
				Messages: []infergate.Message{infergate.UserMessage("hi")},
			}); err != nil {
				t.Fatal(err)
			}
			if len(log.waits) != 1 || log.waits[0] < tt.min || log.waits[0] > tt.max {
				t.Errorf("waits before retrying = %v, want one in [%v, %v]", log.waits, tt.min, tt.max)
			}
		})
	}
}
