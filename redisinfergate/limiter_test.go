package redisinfergate_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/redisinfergate"
	"github.com/redis/go-redis/v9"
)

// Many goroutines in several processes (each its own redis client and limiter) never take more
// than a window's requests or tokens, and use what the windows offer.
func TestWindowsNeverOverAdmit(t *testing.T) {
	t.Parallel()
	const window = time.Second
	for _, tc := range []struct {
		name   string
		quota  infergate.Quota
		tokens int
		per    int // calls a window admits
	}{
		{"requests", infergate.Quota{Requests: 5, Window: window}, 1, 5},
		{"tokens", infergate.Quota{Requests: 100, Tokens: 100, Window: window}, 30, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := infergate.Quotas{Groups: []infergate.QuotaGroup{{Name: "L", Models: []string{"glm-5"}, Quota: tc.quota}}}
			req := infergate.LimitRequest{Key: keyOf(t), Model: "glm-5", Route: "/chat/completions", Tokens: tc.tokens}
			const processes, goroutines = 4, 8
			clock := newRedis(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
			defer cancel()
			start := redisTime(t, clock)
			var admitted atomic.Int64
			var wg sync.WaitGroup
			for range processes {
				l := redisinfergate.NewLimiter(newRedis(t), q)
				for range goroutines {
					wg.Go(func() {
						for {
							p, err := l.Acquire(ctx, req)
							if err != nil {
								if ctx.Err() == nil {
									t.Errorf("Acquire: %v", err)
								}
								return
							}
							admitted.Add(1)
							p.Release(infergate.LimitReport{StatusCode: 200})
						}
					})
				}
			}
			wg.Wait()
			end := redisTime(t, clock)
			windows := int64(end.UnixMilli()/window.Milliseconds()-start.UnixMilli()/window.Milliseconds()) + 1
			got := admitted.Load()
			if most := windows * int64(tc.per); got > most {
				t.Fatalf("%d calls admitted in %d windows of %d; at most %d", got, windows, tc.per, most)
			}
			if least := (windows - 2) * int64(tc.per); got < least {
				t.Fatalf("%d calls admitted in %d windows of %d; at least %d (the whole windows')", got, windows, tc.per, least)
			}
		})
	}
}

// Concurrent places are shared by every process: the next call waits for a place to come back.
func TestConcurrentPlacesShared(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{Default: infergate.Quota{Concurrent: 3}}
	req := infergate.LimitRequest{Key: keyOf(t), Model: "m", Route: "/chat/completions"}
	var held []infergate.Permit
	for range 3 {
		held = append(held, mustAdmit(t, redisinfergate.NewLimiter(newRedis(t), q), req, 5*time.Second))
	}
	other := redisinfergate.NewLimiter(newRedis(t), q)
	mustWait(t, other, req, 300*time.Millisecond)
	held[0].Release(infergate.LimitReport{StatusCode: 200})
	mustAdmit(t, other, req, 5*time.Second).Release(infergate.LimitReport{})
	for _, p := range held[1:] {
		p.Release(infergate.LimitReport{})
	}

	// Under contention, never more than three in flight.
	var inFlight, most atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		l := redisinfergate.NewLimiter(newRedis(t), q)
		for range 4 {
			wg.Go(func() {
				for range 10 {
					p := mustAdmit(t, l, req, 20*time.Second)
					n := inFlight.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					inFlight.Add(-1)
					p.Release(infergate.LimitReport{})
				}
			})
		}
	}
	wg.Wait()
	if m := most.Load(); m > 3 {
		t.Fatalf("%d calls in flight at once; at most 3", m)
	}
}

// A process that vanishes holding a place gives it back when its lease expires; a live holder keeps
// its place by renewing it past the lease time.
func TestLeases(t *testing.T) {
	t.Parallel()
	const lease = 400 * time.Millisecond
	q := infergate.Quotas{Default: infergate.Quota{Concurrent: 1}}
	req := infergate.LimitRequest{Key: keyOf(t), Route: "/chat/completions"}
	other := redisinfergate.NewLimiter(newRedis(t), q, redisinfergate.WithLeaseTime(lease))

	holder := redisinfergate.NewLimiter(newRedis(t), q, redisinfergate.WithLeaseTime(lease))
	held := mustAdmit(t, holder, req, 5*time.Second)
	mustWait(t, other, req, 3*lease) // renewed past its lease time
	held.Release(infergate.LimitReport{})
	mustAdmit(t, other, req, 5*time.Second).Release(infergate.LimitReport{})

	vanishing := redis.NewClient(&redis.Options{Addr: newRedis(t).Options().Addr})
	mustAdmit(t, redisinfergate.NewLimiter(vanishing, q, redisinfergate.WithLeaseTime(lease)), req, 5*time.Second)
	vanishing.Close() // the process is gone: its permit is never released nor renewed
	begun := time.Now()
	mustAdmit(t, other, req, 10*time.Second).Release(infergate.LimitReport{})
	if waited := time.Since(begun); waited > lease+2*time.Second {
		t.Fatalf("the vanished holder's place came back after %v; its lease is %v", waited, lease)
	}
}

// A 429's Retry-After, or a window the server says is used up, holds back every process's later
// calls for that key and group, and only those.
func TestServerHoldsEveryProcess(t *testing.T) {
	t.Parallel()
	// The hold outlasts any stall of a loaded machine between the report and the check that it holds.
	const holdFor = 3 * time.Second
	q := infergate.Quotas{
		Groups:  []infergate.QuotaGroup{{Name: "L", Models: []string{"glm-*"}, Quota: infergate.Quota{Requests: 100}}},
		Default: infergate.Quota{Requests: 100},
	}
	for _, tc := range []struct {
		name   string
		report func() infergate.LimitReport
	}{
		{"Retry-After", func() infergate.LimitReport {
			return infergate.LimitReport{StatusCode: 429, RetryAfter: holdFor}
		}},
		{"remaining requests 0", func() infergate.LimitReport {
			return infergate.LimitReport{StatusCode: 200, RateLimits: &infergate.RateLimits{
				LimitRequests: 20, RemainingRequests: 0, LimitTokens: 500, RemainingTokens: 400,
				ResetRequests: time.Now().Add(holdFor), ResetTokens: time.Now().Add(holdFor)}}
		}},
		{"remaining tokens 0", func() infergate.LimitReport {
			return infergate.LimitReport{StatusCode: 200, RateLimits: &infergate.RateLimits{
				LimitRequests: 20, RemainingRequests: 5, LimitTokens: 500, RemainingTokens: 0,
				ResetRequests: time.Now().Add(holdFor), ResetTokens: time.Now().Add(holdFor)}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			key := keyOf(t)
			glm := infergate.LimitRequest{Key: key, Model: "glm-5", Route: "/chat/completions"}
			first := redisinfergate.NewLimiter(newRedis(t), q)
			second := redisinfergate.NewLimiter(newRedis(t), q)
			mustAdmit(t, first, glm, 5*time.Second).Release(tc.report())
			begun := time.Now()
			mustWait(t, second, glm, 300*time.Millisecond)
			// Another group, another key: not held.
			mustAdmit(t, second, infergate.LimitRequest{Key: key, Model: "other", Route: "/chat/completions"}, 200*time.Millisecond).Release(infergate.LimitReport{})
			mustAdmit(t, second, infergate.LimitRequest{Key: key + "-other", Model: "glm-5", Route: "/chat/completions"}, 200*time.Millisecond).Release(infergate.LimitReport{})
			mustAdmit(t, second, glm, 15*time.Second).Release(infergate.LimitReport{})
			if waited := time.Since(begun); waited < holdFor-time.Second {
				t.Fatalf("admitted after %v; the server asked for %v", waited, holdFor)
			}
		})
	}
}

// No hold without a bound to hold on: a gateway without a token limit sends Remaining-Tokens 0.
func TestNoTokenLimitNoHold(t *testing.T) {
	t.Parallel()
	l := redisinfergate.NewLimiter(newRedis(t), infergate.Quotas{Default: infergate.Quota{Requests: 100}})
	req := infergate.LimitRequest{Key: keyOf(t), Model: "text-embedding-bge-m3", Route: "/chat/completions"}
	mustAdmit(t, l, req, 5*time.Second).Release(infergate.LimitReport{StatusCode: 200, RateLimits: &infergate.RateLimits{
		LimitRequests: 500, RemainingRequests: 499, LimitTokens: 0, RemainingTokens: 0, ResetTokens: time.Now().Add(time.Hour)}})
	mustAdmit(t, l, req, 300*time.Millisecond).Release(infergate.LimitReport{})
}

// Only a 429's Retry-After is the gateway's limiter speaking: another answer's (a provider's 503)
// holds no call back.
func TestRetryAfterHoldsOnlyOn429(t *testing.T) {
	t.Parallel()
	l := redisinfergate.NewLimiter(newRedis(t), infergate.Quotas{Default: infergate.Quota{Requests: 100}})
	req := infergate.LimitRequest{Key: keyOf(t), Model: "glm-5", Route: "/chat/completions"}
	mustAdmit(t, l, req, 5*time.Second).Release(infergate.LimitReport{StatusCode: 503, RetryAfter: time.Hour})
	mustAdmit(t, l, req, 300*time.Millisecond).Release(infergate.LimitReport{})
}

// The tokens an answer used replace the admission's estimate, as the gateway records them.
func TestUsageCorrectsTokens(t *testing.T) {
	t.Parallel()
	// An hour's window, so that the calls of the test fall in one.
	q := infergate.Quotas{Default: infergate.Quota{Tokens: 100, Window: time.Hour}}
	l := redisinfergate.NewLimiter(newRedis(t), q)

	fewer := infergate.LimitRequest{Key: keyOf(t) + ":fewer", Tokens: 60, Route: "/chat/completions"}
	mustAdmit(t, l, fewer, 5*time.Second).Release(infergate.LimitReport{StatusCode: 200, Usage: &infergate.Usage{TotalTokens: 10}})
	mustAdmit(t, l, fewer, 300*time.Millisecond).Release(infergate.LimitReport{})

	more := infergate.LimitRequest{Key: keyOf(t) + ":more", Tokens: 10, Route: "/chat/completions"}
	mustAdmit(t, l, more, 5*time.Second).Release(infergate.LimitReport{StatusCode: 200, Usage: &infergate.Usage{PromptTokens: 50, CompletionTokens: 45}})
	mustWait(t, l, more, 300*time.Millisecond)
}

// A usage whose counts add up past what an int holds fills the window; it is not read as none.
func TestHugeUsageFillsTheWindow(t *testing.T) {
	t.Parallel()
	l := redisinfergate.NewLimiter(newRedis(t), infergate.Quotas{Default: infergate.Quota{Tokens: 100, Window: time.Hour}})
	req := infergate.LimitRequest{Key: keyOf(t), Tokens: 10, Route: "/chat/completions"}
	mustAdmit(t, l, req, 5*time.Second).Release(infergate.LimitReport{StatusCode: 200,
		Usage: &infergate.Usage{PromptTokens: math.MaxInt, CompletionTokens: 1}})
	mustWait(t, l, req, 300*time.Millisecond)
}

// A model no group names is counted in Default, apart from the groups.
func TestUnknownModelFallsToDefault(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{
		Groups:  []infergate.QuotaGroup{{Name: "L", Models: []string{"glm-5"}, Quota: infergate.Quota{Requests: 1, Window: time.Hour}}},
		Default: infergate.Quota{Requests: 1, Window: time.Hour},
	}
	l := redisinfergate.NewLimiter(newRedis(t), q)
	key := keyOf(t)
	mustAdmit(t, l, infergate.LimitRequest{Key: key, Model: "glm-5", Route: "/chat/completions"}, 5*time.Second).Release(infergate.LimitReport{})
	mustAdmit(t, l, infergate.LimitRequest{Key: key, Model: "unknown-a", Route: "/chat/completions"}, 5*time.Second).Release(infergate.LimitReport{})
	mustWait(t, l, infergate.LimitRequest{Key: key, Model: "unknown-b", Route: "/chat/completions"}, 300*time.Millisecond)
	mustWait(t, l, infergate.LimitRequest{Key: key, Model: "GLM-5", Route: "/chat/completions"}, 300*time.Millisecond)
}

// Bad quotas and requests are *ValidationErrors, before anything is sent to Redis.
func TestValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		q     infergate.Quotas
		req   infergate.LimitRequest
		field string
	}{
		{"negative requests", infergate.Quotas{Default: infergate.Quota{Requests: -1}}, infergate.LimitRequest{}, "Quotas.Default.Requests"},
		{"negative group tokens", infergate.Quotas{Groups: []infergate.QuotaGroup{{Name: "a"}, {Name: "b", Quota: infergate.Quota{Tokens: -5}}}},
			infergate.LimitRequest{Model: "x"}, "Quotas.Groups[1].Quota.Tokens"},
		{"negative concurrency", infergate.Quotas{Default: infergate.Quota{Concurrent: -1}}, infergate.LimitRequest{}, "Quotas.Default.Concurrent"},
		{"negative window", infergate.Quotas{Default: infergate.Quota{Window: -time.Second}}, infergate.LimitRequest{}, "Quotas.Default.Window"},
		{"negative tokens", infergate.Quotas{}, infergate.LimitRequest{Tokens: -1}, "LimitRequest.Tokens"},
		{"more tokens than a window", infergate.Quotas{Default: infergate.Quota{Tokens: 10}}, infergate.LimitRequest{Route: "/chat/completions", Tokens: 11}, "LimitRequest.Tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int64
			rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
			defer rdb.Close()
			rdb.AddHook(countHook{&sent})
			_, err := redisinfergate.NewLimiter(rdb, tc.q).Acquire(context.Background(), tc.req)
			var invalid *infergate.ValidationError
			if !errors.As(err, &invalid) || invalid.Field != tc.field {
				t.Fatalf("Acquire: %v; want a *ValidationError on %s", err, tc.field)
			}
			if n := sent.Load(); n != 0 {
				t.Fatalf("%d commands sent", n)
			}
		})
	}
}

type countHook struct{ n *atomic.Int64 }

func (h countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}
func (h countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A call whose context ends while it waits returns the context's error.
func TestAcquireEndsWithContext(t *testing.T) {
	t.Parallel()
	l := redisinfergate.NewLimiter(newRedis(t), infergate.Quotas{Default: infergate.Quota{Requests: 1, Window: time.Hour}})
	req := infergate.LimitRequest{Key: keyOf(t), Route: "/chat/completions"}
	mustAdmit(t, l, req, 5*time.Second).Release(infergate.LimitReport{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Acquire(ctx, req); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire: %v; want context.Canceled", err)
	}
}

// cancelAfterScript ends a call's context once Redis has run its script and reports the context's
// error in place of the reply: the context ended while the reply was on its way.
type cancelAfterScript struct {
	armed  *atomic.Bool
	cancel context.CancelFunc
}

func (h cancelAfterScript) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h cancelAfterScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && strings.HasPrefix(cmd.Name(), "eval") && h.armed.CompareAndSwap(true, false) {
			h.cancel()
			cmd.SetErr(context.Canceled)
			return context.Canceled
		}
		return err
	}
}
func (h cancelAfterScript) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A call whose context ends while Redis admits it leaves no lease behind: the place is free at
// once, not when the lease expires.
func TestAcquireEndedDuringTheScriptLeavesNoLease(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{Default: infergate.Quota{Concurrent: 1}}
	req := infergate.LimitRequest{Key: keyOf(t), Route: "/chat/completions"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rdb := newRedis(t)
	armed := new(atomic.Bool)
	armed.Store(true)
	rdb.AddHook(cancelAfterScript{armed: armed, cancel: cancel})
	if p, err := redisinfergate.NewLimiter(rdb, q).Acquire(ctx, req); !errors.Is(err, context.Canceled) {
		if p != nil {
			p.Release(infergate.LimitReport{})
		}
		t.Fatalf("Acquire: %v; want context.Canceled", err)
	}
	other := redisinfergate.NewLimiter(newRedis(t), q)
	mustAdmit(t, other, req, 2*time.Second).Release(infergate.LimitReport{})
}

// A lease's key lives as long as its longest lease: a process with a shorter lease time does not
// make the places of another one's calls expire with its own.
func TestShortLeaseKeepsLongerOnes(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{Default: infergate.Quota{Concurrent: 2}}
	req := infergate.LimitRequest{Key: keyOf(t), Route: "/chat/completions"}
	long := redisinfergate.NewLimiter(newRedis(t), q, redisinfergate.WithLeaseTime(time.Minute))
	short := redisinfergate.NewLimiter(newRedis(t), q, redisinfergate.WithLeaseTime(100*time.Millisecond))
	held := mustAdmit(t, long, req, 5*time.Second)
	defer held.Release(infergate.LimitReport{})
	mustAdmit(t, short, req, 5*time.Second).Release(infergate.LimitReport{})
	time.Sleep(300 * time.Millisecond) // past the short lease time, well within the long one
	other := mustAdmit(t, long, req, 5*time.Second)
	defer other.Release(infergate.LimitReport{})
	mustWait(t, long, req, 300*time.Millisecond)
}
