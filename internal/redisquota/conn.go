// Package redisquota is the limiter and the cooldown store that processes share through Redis:
// the Lua scripts that count windows, leases and holds, what their replies mean, the leases'
// renewal and what happens when Redis cannot be reached. It speaks to Redis through Conn, which
// redisinfergate implements on go-redis and Dial on internal/resp, so that the module and the
// infergate command count alike.
package redisquota

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/infergate/infergate-go/internal/resp"
)

// Conn is what the limiter and the store need of a Redis client. Replies are int64, string, nil,
// []any of those, or an error: an error answer of the server implements RedisError() (resp.Error
// and go-redis's errors do), and an error of a client that was closed wraps ErrClosed.
type Conn interface {
	// Do sends one command.
	Do(ctx context.Context, args ...any) (any, error)
	// Run runs a script: by its hash, and whole when the server does not have it.
	Run(ctx context.Context, s *resp.Script, keys []string, args ...any) (any, error)
}

// ErrUnreachable is wrapped, with the cause, by what Acquire returns when Redis cannot be reached
// and the limiter fails closed, and by the cooldown store's errors of that kind.
var ErrUnreachable = errors.New("Redis cannot be reached")

// ErrUnexpectedReply is wrapped, with what came, by the error of an answer the limiter or the
// store does not expect: a script replaced, a proxy or another server on the address.
var ErrUnexpectedReply = errors.New("unexpected reply from Redis")

// ErrClosed is wrapped by the errors of a Conn whose client was closed: nothing renews a lease
// through it any more.
var ErrClosed = errors.New("the Redis client is closed")

// The defaults of Settings.
const (
	DefaultLeaseTime = 30 * time.Second
	DefaultPrefix    = "infergate"
)

// Settings configure a Limiter or a CooldownStore; zero fields are the defaults.
type Settings struct {
	Logger     *slog.Logger  // where Redis's outages and background failures are said; none by default
	Name       string        // begins what the logger is told: "redisinfergate", "infergate"
	Prefix     string        // begins every key's name: DefaultPrefix
	Lease      time.Duration // how long a concurrency lease lasts unrenewed: DefaultLeaseTime
	FailClosed bool          // Acquire fails, rather than letting the call go on, when Redis cannot be reached
}

func (s Settings) normalized() Settings {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Name == "" {
		s.Name = "infergate"
	}
	if s.Prefix == "" {
		s.Prefix = DefaultPrefix
	}
	if s.Lease <= 0 {
		s.Lease = DefaultLeaseTime
	}
	s.Lease = max(s.Lease, time.Millisecond)
	return s
}
