package redisquota

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/quota"
)

// pollLimit bounds how long a call waiting for a concurrency place sleeps before it asks again:
// places come back when calls end, which no window predicts.
const pollLimit = 50 * time.Millisecond

// askAgainAfter is how long, once Redis could not be reached, calls go on (or fail, closed)
// without asking it, as the gateway's own limiter does with its circuit breaker: a Redis that does
// not answer would otherwise cost every call the client's timeouts. Then one call asks it again.
const askAgainAfter = time.Second

// Limiter is an infergate.Limiter whose counts live in Redis, shared by every process that uses the
// same Redis, prefix and quotas. Requests and tokens are counted per credential (LimitRequest.Key)
// and per group (by QuotaGroup.Name; Default's count is apart from every group's, and a request
// naming no model is Default's) in fixed windows aligned on the Unix epoch, on the routes and as
// the gateway counts them (Quota.Concurrent counts every route), atomically in one script that takes the
// time from Redis. Concurrent places are leases that expire unless their holder renews them, so
// that a process that dies gives its places back within the lease time (Settings.Lease).
//
// When Redis cannot be reached, calls go on unlimited (Unlimited counts them) and the logger says
// so, unless Settings.FailClosed. A Redis answer the limiter does not expect is an error wrapping
// ErrUnexpectedReply. The Conn's own timeouts and retries bound how long a call waits on a Redis
// that does not answer; once one has found it unreachable, the calls of the next second go on
// without asking it, then one asks it again.
type Limiter struct {
	conn      Conn
	quotas    infergate.Quotas
	settings  Settings
	valid     func() error
	now       func() time.Time // converts the server's reset times into durations
	unlimited atomic.Int64
	down      atomic.Bool
	askAgain  atomic.Int64 // while Redis cannot be reached: when to ask it again, in Unix ns
}

// NewLimiter returns a limiter of q's quotas, counted through conn. A negative bound in q is
// reported by the first Acquire, as a *infergate.ValidationError, before anything is sent.
func NewLimiter(conn Conn, q infergate.Quotas, s Settings) *Limiter {
	l := &Limiter{conn: conn, quotas: q, settings: s.normalized(), now: time.Now}
	l.valid = sync.OnceValue(func() error { return validate(q) })
	return l
}

var _ infergate.Limiter = (*Limiter)(nil)

// Unlimited returns how many calls went on without a limit because Redis could not be reached.
func (l *Limiter) Unlimited() int64 { return l.unlimited.Load() }

// Acquire waits until req may be sent, within its group's quota and after any hold the server
// asked for, and returns its permit; or ctx's error when ctx ends first.
func (l *Limiter) Acquire(ctx context.Context, req infergate.LimitRequest) (infergate.Permit, error) {
	if err := l.valid(); err != nil {
		return nil, err
	}
	if req.Tokens < 0 {
		return nil, &infergate.ValidationError{Field: "LimitRequest.Tokens", Reason: fmt.Sprintf("%d is negative", req.Tokens)}
	}
	group, q := l.quota(req.Model)
	counted := quota.CountedRoute(req.Route)
	if counted && q.Tokens > 0 && req.Tokens > q.Tokens {
		return nil, &infergate.ValidationError{Field: "LimitRequest.Tokens", Reason: fmt.Sprintf(
			"%d tokens are more than the %d a window of the quota of %q: the gateway would never admit the call", req.Tokens, q.Tokens, group)}
	}
	if l.conn == nil {
		return nil, &infergate.ValidationError{Field: "redis client", Reason: "is nil"}
	}
	if !counted {
		if q.Concurrent == 0 {
			return uncountedPermit{}, nil // nothing to count, nor to hold back
		}
		q.Requests, q.Tokens = 0, 0 // only the places in flight
	}
	p := &permit{l: l, keys: newQuotaKeys(l.settings.Prefix, req.Key, group), window: window(q),
		estimate: req.Tokens, counted: counted, tokens: counted && q.Tokens > 0}
	if q.Concurrent > 0 {
		p.lease = rand.Text()
	}
	if !l.mayAsk(true) {
		return l.unreachable(ErrUnreachable)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		reply, err := l.conn.Run(ctx, acquireScript, p.keys.list(), q.Requests, q.Tokens, q.Concurrent,
			p.window.Milliseconds(), req.Tokens, p.lease, l.settings.Lease.Milliseconds(), counted)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				p.dropLease(ctx) // the script may have run before the context ended
				return nil, ctxErr
			}
			err = classify(err)
			if !errors.Is(err, ErrUnreachable) {
				return nil, err
			}
			l.failed(err)
			return l.unreachable(err)
		}
		l.answered()
		a, err := parseAdmission(reply)
		if err != nil {
			return nil, err
		}
		if a.admitted {
			p.start = a.start
			p.renewWhileHeld()
			return p, nil
		}
		wait := time.Duration(a.waitMS) * time.Millisecond
		if a.reason == waitConcurrent {
			wait = min(wait, pollLimit)
		}
		// A little spread, so that the callers a full window held back do not all ask at its first
		// millisecond.
		wait += mathrand.N(wait/20 + time.Millisecond)
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// quota returns the name the group of model is counted under and its quota. A request that names
// no model is the default quota's, as the gateway's default group has it, though "" is contained in
// every group's names.
func (l *Limiter) quota(model string) (string, infergate.Quota) {
	if g, ok := l.quotas.Group(model); ok && model != "" {
		return g.Name, g.Quota
	}
	return "", l.quotas.Default
}

// unreachable is Acquire's answer when Redis cannot be reached.
func (l *Limiter) unreachable(err error) (infergate.Permit, error) {
	if l.settings.FailClosed {
		return nil, err
	}
	l.unlimited.Add(1)
	return unlimitedPermit{}, nil
}

// mayAsk reports whether Redis may be asked: it answered last, or it did not and askAgainAfter has
// passed since; then, for a probe, only the first caller asks it.
func (l *Limiter) mayAsk(probe bool) bool {
	at := l.askAgain.Load()
	if at == 0 {
		return true
	}
	now := time.Now().UnixNano()
	return now >= at && probe && l.askAgain.CompareAndSwap(at, now+int64(askAgainAfter))
}

// failed notes that Redis could not be reached: said once, until it answers again.
func (l *Limiter) failed(err error) {
	l.askAgain.Store(time.Now().Add(askAgainAfter).UnixNano())
	if l.down.CompareAndSwap(false, true) {
		then := "calls go on without a limit until it answers again"
		if l.settings.FailClosed {
			then = "calls fail until it answers again"
		}
		l.settings.Logger.Warn(l.settings.Name+": Redis cannot be reached; "+then, slog.Any("error", err))
	}
}

func (l *Limiter) answered() {
	l.askAgain.Store(0)
	if l.down.CompareAndSwap(true, false) {
		l.settings.Logger.Info(l.settings.Name+": Redis answers again; calls are limited again",
			slog.Int64("unlimited", l.unlimited.Load()))
	}
}

func window(q infergate.Quota) time.Duration {
	if q.Window == 0 {
		return time.Minute
	}
	return q.Window
}

func validate(q infergate.Quotas) error {
	check := func(field string, q infergate.Quota) error {
		for _, c := range []struct {
			name string
			n    int
		}{{"Requests", q.Requests}, {"Tokens", q.Tokens}, {"Concurrent", q.Concurrent}} {
			if c.n < 0 {
				return &infergate.ValidationError{Field: field + "." + c.name, Reason: fmt.Sprintf("%d is negative", c.n)}
			}
		}
		if q.Window < 0 || (q.Window > 0 && q.Window < time.Millisecond) {
			return &infergate.ValidationError{Field: field + ".Window", Reason: fmt.Sprintf("%v is not 0 nor at least a millisecond", q.Window)}
		}
		return nil
	}
	for i, g := range q.Groups {
		if err := check(fmt.Sprintf("Quotas.Groups[%d].Quota", i), g.Quota); err != nil {
			return err
		}
	}
	return check("Quotas.Default", q.Default)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// uncountedPermit is the permit of a call on a route the gateway does not count, with no bound on
// the calls in flight.
type uncountedPermit struct{}

func (uncountedPermit) Release(infergate.LimitReport) {}

// unlimitedPermit is the permit of a call that went on without a limit.
type unlimitedPermit struct{}

func (unlimitedPermit) Release(infergate.LimitReport) {}
