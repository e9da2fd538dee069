package redisinfergate

import (
	"context"
	"errors"
	"fmt"

	"github.com/infergate/infergate-go/internal/redisquota"
	"github.com/infergate/infergate-go/internal/resp"
	"github.com/redis/go-redis/v9"
)

// goRedis is the limiter's and the store's connection on a go-redis client, which the counting,
// shared with the infergate command, goes through.
type goRedis struct{ rdb redis.UniversalClient }

// conn is rdb's connection; nil for nil, which the limiter reports.
func conn(rdb redis.UniversalClient) redisquota.Conn {
	if rdb == nil {
		return nil
	}
	return goRedis{rdb}
}

func (g goRedis) Do(ctx context.Context, args ...any) (any, error) {
	return reply(g.rdb.Do(ctx, args...).Result())
}

// Run runs s as go-redis's Script.Run does: by its hash, then whole when Redis answers NOSCRIPT.
func (g goRedis) Run(ctx context.Context, s *resp.Script, keys []string, args ...any) (any, error) {
	v, err := g.rdb.EvalSha(ctx, s.Hash(), keys, args...).Result()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		v, err = g.rdb.Eval(ctx, s.Source(), keys, args...).Result()
	}
	return reply(v, err)
}

// reply is a go-redis reply as a Conn's: a nil reply is nil, not redis.Nil; a closed client's and
// an exhausted pool's errors say so.
func reply(v any, err error) (any, error) {
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case errors.Is(err, redis.ErrClosed):
		return nil, fmt.Errorf("%w: %w", redisquota.ErrClosed, err)
	case errors.Is(err, redis.ErrPoolTimeout):
		return nil, fmt.Errorf("%w: %w", redisquota.ErrUnreachable, err)
	}
	return v, err
}
