package redisinfergate

import (
	"context"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/redisquota"
	"github.com/redis/go-redis/v9"
)

// CooldownStore is an infergate.CooldownStore kept in Redis, so that a model one process saw fail
// is skipped by every process sharing the Redis and prefix. A cooldown is a key that expires when
// it ends. Its methods return errors wrapping ErrUnreachable or ErrUnexpectedReply; the client
// decides what a failing store means for a call.
type CooldownStore struct {
	s *redisquota.CooldownStore
}

// NewCooldownStore returns a cooldown store kept in rdb. Of the options, WithPrefix applies.
func NewCooldownStore(rdb redis.UniversalClient, opts ...Option) *CooldownStore {
	return &CooldownStore{s: redisquota.NewCooldownStore(conn(rdb), newSettings(opts))}
}

var _ infergate.CooldownStore = (*CooldownStore)(nil)

// Cool marks model as cooling for the callers of key for d from now (rounded up to a millisecond),
// replacing any cooldown it had. A d that is not positive does nothing.
func (s *CooldownStore) Cool(ctx context.Context, key, model string, d time.Duration) error {
	return s.s.Cool(ctx, key, model, d)
}

// Cooling reports, for each of models in order, whether it is cooling for the callers of key, in
// one round trip.
func (s *CooldownStore) Cooling(ctx context.Context, key string, models []string) ([]bool, error) {
	return s.s.Cooling(ctx, key, models)
}
