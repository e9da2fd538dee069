package redisinfergate

import (
	"log/slog"
	"time"

	"github.com/infergate/infergate-go/internal/redisquota"
)

// ErrUnreachable is what Acquire returns, wrapped with the cause, when Redis cannot be reached and
// the limiter fails closed (WithFailClosed); the cooldown store's methods return it too.
var ErrUnreachable = redisquota.ErrUnreachable

// ErrUnexpectedReply is returned, wrapped with what came, when Redis answers in a way the limiter
// or the store does not expect: a script replaced, a proxy or another server on the address.
var ErrUnexpectedReply = redisquota.ErrUnexpectedReply

// DefaultLeaseTime is how long a concurrency lease outlives the last sign of life of its holder.
const DefaultLeaseTime = 30 * time.Second

// DefaultPrefix begins the name of every key written.
const DefaultPrefix = "infergate"

// Option configures a Limiter or a CooldownStore. Options that concern only the limiter (the lease
// time, failing closed) are ignored by the store.
type Option func(*settings)

// settings are the shared limiter's, which the options fill in.
type settings redisquota.Settings

func newSettings(opts []Option) redisquota.Settings {
	s := settings{Name: "redisinfergate", Prefix: DefaultPrefix, Lease: DefaultLeaseTime}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	return redisquota.Settings(s)
}

// WithLogger is where the limiter says that Redis cannot be reached (once, when it stops answering,
// and again when it answers again) and what went wrong in the background (a lease lost, a release
// that failed). Pass the client's logger (infergate.WithLogger's) so that both speak in one place.
// Nothing is logged without it.
func WithLogger(logger *slog.Logger) Option {
	return func(s *settings) {
		if logger != nil {
			s.Logger = logger
		}
	}
}

// WithPrefix begins every key's name with prefix instead of DefaultPrefix, for several
// applications sharing one Redis. Every process sharing a quota must use the same prefix.
func WithPrefix(prefix string) Option {
	return func(s *settings) {
		if prefix != "" {
			s.Prefix = prefix
		}
	}
}

// WithLeaseTime is how long a concurrency lease lasts without being renewed (DefaultLeaseTime when
// d is not positive; at least a millisecond). The holder renews it every third of d while its call
// runs, so d bounds how long the places of a process that died stay taken.
func WithLeaseTime(d time.Duration) Option {
	return func(s *settings) {
		if d > 0 {
			s.Lease = max(d, time.Millisecond)
		}
	}
}

// WithFailClosed, when closed is true, makes Acquire return an error wrapping ErrUnreachable when
// Redis cannot be reached, instead of letting the call go on unlimited (the default, as the
// gateway's own limiter does).
func WithFailClosed(closed bool) Option {
	return func(s *settings) { s.FailClosed = closed }
}
