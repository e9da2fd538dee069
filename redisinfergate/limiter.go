package redisinfergate

import (
	"context"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/redisquota"
	"github.com/redis/go-redis/v9"
)

// Limiter is an infergate.Limiter whose counts live in Redis, shared by every process that uses the
// same Redis, prefix and quotas. Requests and tokens are counted per credential (LimitRequest.Key)
// and per group (by QuotaGroup.Name; Default's count is apart from every group's, and a request
// naming no model is Default's) in fixed windows aligned on the Unix epoch, on the routes and as
// the gateway counts them (Quota.Concurrent counts every route), atomically in one script that takes the
// time from Redis. Concurrent places are leases that expire unless their holder renews them, so
// that a process that dies gives its places back within the lease time (WithLeaseTime).
//
// When Redis cannot be reached, calls go on unlimited (Unlimited counts them) and the logger says
// so, unless WithFailClosed(true). A Redis answer the limiter does not expect is an error wrapping
// ErrUnexpectedReply. The redis client's own timeouts and retries bound how long a call waits on a
// Redis that does not answer; once one has found it unreachable, the calls of the next second go on
// without asking it, then one asks it again.
type Limiter struct {
	l *redisquota.Limiter
}

// NewLimiter returns a limiter of q's quotas, counted in rdb. A negative bound in q is reported by
// the first Acquire, as a *infergate.ValidationError, before anything is sent.
func NewLimiter(rdb redis.UniversalClient, q infergate.Quotas, opts ...Option) *Limiter {
	return &Limiter{l: redisquota.NewLimiter(conn(rdb), q, newSettings(opts))}
}

var _ infergate.Limiter = (*Limiter)(nil)

// Unlimited returns how many calls went on without a limit because Redis could not be reached.
func (l *Limiter) Unlimited() int64 { return l.l.Unlimited() }

// Acquire waits until req may be sent, within its group's quota and after any hold the server
// asked for, and returns its permit; or ctx's error when ctx ends first.
func (l *Limiter) Acquire(ctx context.Context, req infergate.LimitRequest) (infergate.Permit, error) {
	return l.l.Acquire(ctx, req)
}
