package redisinfergate_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// newRedis returns a client of the package's redis-server, one per simulated process, closed
// after the test.
func newRedis(t testing.TB) *redis.Client {
	t.Helper()
	srv := redistest.Shared(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// keyOf is a credential name no other test uses.
func keyOf(t testing.TB) string {
	return strings.NewReplacer("/", ":", " ", "_").Replace(t.Name())
}

// redisTime is the server's clock.
func redisTime(t testing.TB, rdb *redis.Client) time.Time {
	t.Helper()
	now, err := rdb.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// acquireWithin acquires with a deadline d away; the error is ctx's when it did not come in time.
func acquireWithin(l infergate.Limiter, req infergate.LimitRequest, d time.Duration) (infergate.Permit, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return l.Acquire(ctx, req)
}

// mustWait checks that req is not admitted within d.
func mustWait(t testing.TB, l infergate.Limiter, req infergate.LimitRequest, d time.Duration) {
	t.Helper()
	p, err := acquireWithin(l, req, d)
	if err == nil {
		p.Release(infergate.LimitReport{})
		t.Fatalf("%+v was admitted; want it held back", req)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire: %v; want the context's deadline", err)
	}
}

// mustAdmit acquires req within d.
func mustAdmit(t testing.TB, l infergate.Limiter, req infergate.LimitRequest, d time.Duration) infergate.Permit {
	t.Helper()
	p, err := acquireWithin(l, req, d)
	if err != nil {
		t.Fatalf("Acquire(%+v): %v", req, err)
	}
	return p
}

// logs is a logger's output, safe for concurrent use.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logs) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }
