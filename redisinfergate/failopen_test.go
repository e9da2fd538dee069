package redisinfergate_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/redistest"
	"github.com/infergate/infergate-go/redisinfergate"
	"github.com/redis/go-redis/v9"
)

// Redis stopped: calls go on unlimited, counted and said once; Redis back: calls are limited again.
// Not parallel: it stops the package's server, which the parallel tests, run after it, use.
func TestFailsOpenWhileRedisIsDown(t *testing.T) {
	srv := redistest.Shared(t)
	t.Cleanup(func() { srv.Restart() }) // the tests after this one need it, whatever happens here
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
	defer rdb.Close()
	var out logs
	l := redisinfergate.NewLimiter(rdb, infergate.Quotas{Default: infergate.Quota{Requests: 1, Window: time.Hour}},
		redisinfergate.WithLogger(out.logger()))
	req := infergate.LimitRequest{Key: keyOf(t), Route: "/chat/completions"}
	mustAdmit(t, l, req, 5*time.Second).Release(infergate.LimitReport{})

	srv.Stop()
	for range 3 {
		p := mustAdmit(t, l, req, 10*time.Second) // the window is full, but nothing can say so
		p.Release(infergate.LimitReport{StatusCode: 429, RetryAfter: time.Second})
	}
	if n := l.Unlimited(); n != 3 {
		t.Fatalf("Unlimited() = %d; want 3", n)
	}
	if n := strings.Count(out.String(), "level=WARN"); n != 1 {
		t.Fatalf("said %d times that Redis cannot be reached; want once:\n%s", n, out.String())
	}

	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	// The pool's connections to the stopped server are dropped as they are found dead.
	for deadline := time.Now().Add(10 * time.Second); rdb.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatal("the restarted server does not answer a PING")
		}
	}
	// The limiter asks Redis again a second after it last failed to answer; until then calls go on.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		before := l.Unlimited()
		mustAdmit(t, l, req, 5*time.Second).Release(infergate.LimitReport{})
		if l.Unlimited() == before {
			break // limited: the restarted server forgot the window, and counts this call in it
		}
		if time.Now().After(deadline) {
			t.Fatalf("still unlimited 10 s after Redis came back (%d calls)", l.Unlimited())
		}
	}
	unlimited := l.Unlimited()
	mustWait(t, l, req, 300*time.Millisecond)
	if n := l.Unlimited(); n != unlimited {
		t.Fatalf("Unlimited() = %d after Redis came back, was %d", n, unlimited)
	}
	if !strings.Contains(out.String(), "Redis answers again") {
		t.Fatalf("not said that Redis answers again:\n%s", out.String())
	}
}

// WithFailClosed(true): a call that cannot reach Redis fails, with ErrUnreachable.
func TestFailsClosed(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: closedPort(t), MaxRetries: -1})
	defer rdb.Close()
	for _, closed := range []bool{true, false} {
		l := redisinfergate.NewLimiter(rdb, infergate.Quotas{}, redisinfergate.WithFailClosed(closed))
		p, err := l.Acquire(context.Background(), infergate.LimitRequest{Key: "k", Route: "/chat/completions"})
		if closed {
			if !errors.Is(err, redisinfergate.ErrUnreachable) || p != nil {
				t.Fatalf("failing closed: Acquire = %v, %v; want ErrUnreachable", p, err)
			}
			continue
		}
		if err != nil || l.Unlimited() != 1 {
			t.Fatalf("failing open: Acquire: %v, Unlimited() = %d; want a permit, 1", err, l.Unlimited())
		}
		p.Release(infergate.LimitReport{})
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
