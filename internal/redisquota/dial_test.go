package redisquota_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/redisquota"
	"github.com/infergate/infergate-go/internal/redistest"
)

// dial is Dial on the package's redis-server, with a prefix of the test's own, closed after it.
func dial(t *testing.T, q infergate.Quotas) (infergate.Limiter, infergate.CooldownStore) {
	t.Helper()
	srv := redistest.Shared(t)
	l, c, closeRedis, err := redisquota.Dial(t.Context(), "redis://"+srv.Addr, q, redisquota.WithPrefix(t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeRedis() })
	return l, c
}

// Two limiters dialled apart share one window: what one admitted, the other counts.
func TestDialSharesTheWindow(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{Default: infergate.Quota{Requests: 2, Window: time.Hour}}
	a, _ := dial(t, q)
	b, _ := dial(t, q)
	req := infergate.LimitRequest{Key: "k", Model: "m", Tokens: 1, Route: "/chat/completions"}
	for _, l := range []infergate.Limiter{a, b} {
		p, err := l.Acquire(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		p.Release(infergate.LimitReport{StatusCode: 200})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if p, err := a.Acquire(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		if p != nil {
			p.Release(infergate.LimitReport{})
		}
		t.Fatalf("a third call in a window of 2: %v; want it held until the context's deadline", err)
	}
}

// A model cooled through one store is cooling for another.
func TestDialSharesCooldowns(t *testing.T) {
	t.Parallel()
	_, a := dial(t, infergate.Quotas{})
	_, b := dial(t, infergate.Quotas{})
	if err := a.Cool(t.Context(), "k", "down", time.Minute); err != nil {
		t.Fatal(err)
	}
	cooling, err := b.Cooling(t.Context(), "k", []string{"up", "down"})
	if err != nil || len(cooling) != 2 || cooling[0] || !cooling[1] {
		t.Fatalf("Cooling = %v, %v; want [false true]", cooling, err)
	}
}

// What Dial refuses, it refuses before it returns, and its errors never quote a password.
func TestDialErrors(t *testing.T) {
	t.Parallel()
	srv := redistest.Shared(t)
	for _, tc := range []struct {
		name, url string
		q         infergate.Quotas
		want      string
	}{
		{"not a URL", "redis://:s3cret@host:port:x", infergate.Quotas{}, "not a URL"},
		{"another scheme", "http://:s3cret@" + srv.Addr, infergate.Quotas{}, "redis://"},
		{"a password the server does not want", "redis://:s3cret@" + srv.Addr, infergate.Quotas{}, "AUTH"},
		{"nothing listening", "redis://:s3cret@127.0.0.1:1", infergate.Quotas{}, "cannot be reached"},
		{"a negative quota", "redis://" + srv.Addr, infergate.Quotas{Default: infergate.Quota{Requests: -1}}, "Quotas.Default.Requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			l, c, closeRedis, err := redisquota.Dial(ctx, tc.url, tc.q)
			if err == nil || l != nil || c != nil || closeRedis != nil {
				t.Fatalf("Dial = %v, %v, %v; want an error", l, c, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Dial: %v; want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("Dial: %v quotes the password", err)
			}
		})
	}
}

// A Redis that stops answering after Dial lets calls go on, counted, and the logger says so once.
func TestDialFailsOpen(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		redistest.Unavailable(t, err)
	}
	t.Cleanup(srv.Stop)
	var out strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	}), nil))
	l, _, closeRedis, err := redisquota.Dial(t.Context(), "redis://"+srv.Addr,
		infergate.Quotas{Default: infergate.Quota{Requests: 1, Window: time.Hour}}, redisquota.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	defer closeRedis()
	req := infergate.LimitRequest{Key: "k", Route: "/chat/completions"}
	p, err := l.Acquire(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	p.Release(infergate.LimitReport{})
	srv.Stop()
	for range 3 {
		p, err := l.Acquire(t.Context(), req) // the window is full, but nothing can say so
		if err != nil {
			t.Fatalf("Acquire with Redis stopped: %v; want the call let through", err)
		}
		p.Release(infergate.LimitReport{})
	}
	if n := l.(*redisquota.Limiter).Unlimited(); n != 3 {
		t.Fatalf("Unlimited() = %d; want 3", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(out.String(), "level=WARN msg=\"infergate: Redis cannot be reached"); n != 1 {
		t.Fatalf("said %d times that Redis cannot be reached; want once:\n%s", n, out.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
