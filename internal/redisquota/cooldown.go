package redisquota

import (
	"context"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// CooldownStore is an infergate.CooldownStore kept in Redis, so that a model one process saw fail
// is skipped by every process sharing the Redis and prefix. A cooldown is a key that expires when
// it ends. Its methods return errors wrapping ErrUnreachable or ErrUnexpectedReply; the client
// decides what a failing store means for a call.
type CooldownStore struct {
	conn   Conn
	prefix string
}

// NewCooldownStore returns a cooldown store kept through conn. Of the settings, Prefix applies.
func NewCooldownStore(conn Conn, s Settings) *CooldownStore {
	return &CooldownStore{conn: conn, prefix: s.normalized().Prefix}
}

var _ infergate.CooldownStore = (*CooldownStore)(nil)

// Cool marks model as cooling for the callers of key for d from now (rounded up to a millisecond),
// replacing any cooldown it had. A d that is not positive does nothing.
func (s *CooldownStore) Cool(ctx context.Context, key, model string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	d = (d + time.Millisecond - 1).Truncate(time.Millisecond)
	reply, err := s.conn.Do(ctx, "SET", cooldownKey(s.prefix, key, model), "1", "PX", d.Milliseconds())
	if err != nil {
		return classify(err)
	}
	if ok, isString := reply.(string); !isString || ok != "OK" {
		return unexpected(reply)
	}
	return nil
}

// Cooling reports, for each of models in order, whether it is cooling for the callers of key, in
// one round trip.
func (s *CooldownStore) Cooling(ctx context.Context, key string, models []string) ([]bool, error) {
	if len(models) == 0 {
		return []bool{}, nil
	}
	args := make([]any, 0, len(models)+1)
	args = append(args, "MGET")
	for _, m := range models {
		args = append(args, cooldownKey(s.prefix, key, m))
	}
	reply, err := s.conn.Do(ctx, args...)
	if err != nil {
		return nil, classify(err)
	}
	values, ok := reply.([]any)
	if !ok || len(values) != len(models) {
		return nil, unexpected(reply)
	}
	cooling := make([]bool, len(models))
	for i, v := range values {
		switch v.(type) {
		case nil:
		case string:
			cooling[i] = true
		default:
			return nil, unexpected(reply)
		}
	}
	return cooling, nil
}
