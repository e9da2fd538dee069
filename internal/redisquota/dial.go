package redisquota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/resp"
)

// Option configures what Dial returns.
type Option func(*Settings)

// WithLogger is where the limiter says that Redis cannot be reached, and when it answers again.
func WithLogger(logger *slog.Logger) Option { return func(s *Settings) { s.Logger = logger } }

// WithPrefix begins every key's name with prefix instead of DefaultPrefix; every process sharing
// a quota must use the same.
func WithPrefix(prefix string) Option { return func(s *Settings) { s.Prefix = prefix } }

// Dial connects to the Redis server of url (redis://[[user]:password@]host[:port][/db], rediss://
// for TLS) and returns a limiter of q's quotas and a cooldown store counted there, shared with
// every process, redisinfergate's included, that uses the same Redis and prefix; and the function
// that closes the connections. The server must answer a PING within ctx: a wrong URL, address or
// password is an error here, which never quotes the URL's password. Once dialled, a Redis that
// stops answering lets calls go on unlimited (and the logger says so), as redisinfergate's limiter
// does.
func Dial(ctx context.Context, url string, q infergate.Quotas, opts ...Option) (limiter infergate.Limiter, cooldowns infergate.CooldownStore, close func() error, err error) {
	o, err := resp.ParseURL(url)
	if err != nil {
		return nil, nil, nil, err
	}
	var s Settings
	for _, opt := range opts {
		if opt != nil {
			opt(&s)
		}
	}
	client := resp.New(o)
	c := respConn{client}
	reply, err := c.Do(ctx, "PING")
	if err == nil && reply != "PONG" {
		err = unexpected(reply)
	}
	if err != nil {
		client.Close()
		return nil, nil, nil, fmt.Errorf("Redis at %s: %w", o.Addr, classify(err))
	}
	l := NewLimiter(c, q, s)
	if err := l.valid(); err != nil {
		client.Close()
		return nil, nil, nil, err
	}
	return l, NewCooldownStore(c, s), client.Close, nil
}

// respConn is a Conn on internal/resp.
type respConn struct{ c *resp.Client }

func (r respConn) Do(ctx context.Context, args ...any) (any, error) {
	reply, err := r.c.Do(ctx, args...)
	return reply, closed(err)
}

func (r respConn) Run(ctx context.Context, s *resp.Script, keys []string, args ...any) (any, error) {
	reply, err := r.c.Run(ctx, s, keys, args...)
	return reply, closed(err)
}

func closed(err error) error {
	if errors.Is(err, resp.ErrClosed) {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}
