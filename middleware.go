package infergate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/infergate/infergate-go/internal/transport"
)

// Middleware wraps every HTTP attempt the client makes: retries each go through it again, so a
// tracing or metrics middleware sees them all. It may change the request, look at the response, or
// answer without calling next. For example, counting attempts and their latency:
//
//	timing := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
//		start := time.Now()
//		resp, err := next(req)
//		metrics.Observe(req.URL.Path, time.Since(start), err)
//		return resp, err
//	}
//	client, err := infergate.NewClient(infergate.WithMiddleware(timing))
//
// For OpenTelemetry, the nested module otelinfergate traces whole operations (a stream until its
// end, a tool loop with its calls) and its HTTP attempts; middleware is for HTTP concerns.
type Middleware func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// WithMiddleware adds middleware around every attempt, in order: the first given is the outermost.
// Passed to a method, it adds to the client's middleware for that call.
func WithMiddleware(mw ...Middleware) Option {
	return func(c *config) {
		for _, m := range mw {
			if m != nil {
				c.middleware = append(c.middleware, m)
			}
		}
	}
}

// withMiddleware puts the middleware chain in front of a transport.
func withMiddleware(rt http.RoundTripper, mw []Middleware) http.RoundTripper {
	for i := len(mw) - 1; i >= 0; i-- {
		rt = middlewareRT{mw: mw[i], next: rt}
	}
	return rt
}

type middlewareRT struct {
	mw   Middleware
	next http.RoundTripper
}

func (m middlewareRT) RoundTrip(req *http.Request) (*http.Response, error) {
	return m.mw(req, m.next.RoundTrip)
}

// WithStandIn adds mw as WithMiddleware does, for a middleware that answers in place of the
// gateway, such as a replaying gatewaytest cassette, and tells the client what follows from that:
//
//   - A call needs no credential for mw to answer it. Without one it goes to mw with no
//     Authorization header; if mw passes it on (calls next), it fails there, before it leaves the
//     client, with the *ValidationError it fails with when there is no stand-in.
//   - An error mw returns itself, rather than one its next returned, is mw's answer: the call
//     returns it as it is (credentials redacted), not as a *TransportError about the gateway's
//     address, and does not retry it.
func WithStandIn(mw Middleware) Option {
	return func(c *config) {
		if mw != nil {
			c.standIn = true
			c.middleware = append(c.middleware, standIn(mw))
		}
	}
}

// standIn wraps a stand-in's middleware: its next refuses a request that lacks its credential, and
// an error of its own is marked as its answer.
func standIn(mw Middleware) Middleware {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		var nextErr error
		resp, err := mw(req, func(req *http.Request) (*http.Response, error) {
			if missing, ok := req.Context().Value(missingCredentialKey{}).(error); ok {
				nextErr = transport.Permanent(&standInAnswer{missing})
				return nil, nextErr
			}
			resp, err := next(req)
			nextErr = err
			return resp, err
		})
		if err != nil && (nextErr == nil || !errors.Is(err, nextErr)) {
			err = transport.Permanent(&standInAnswer{err})
		}
		return resp, err
	}
}

// missingCredentialKey carries, in a request's context, the error a call without its credential
// fails with once it goes past a stand-in.
type missingCredentialKey struct{}

// standInAnswer is an error that did not come from the network: a stand-in's own answer, or a
// missing credential found past it. The call returns what it holds as it is.
type standInAnswer struct{ err error }

func (e *standInAnswer) Error() string { return e.err.Error() }
func (e *standInAnswer) Unwrap() error { return e.err }

// DefaultTimeout bounds every call that is not a stream, unless WithTimeout sets another bound. It is
// long because a gateway's first byte can take minutes while a cold model starts.
const DefaultTimeout = 10 * time.Minute

// TimeoutError is a call that ran past one of the SDK's bounds: WithTimeout's for a call that is
// not a stream (DefaultTimeout unless set), or one of WithStreamTimeouts' for an answer read as it
// arrives (a chat stream, speech). Every one matches context.DeadlineExceeded, so one errors.As or
// errors.Is catches each timeout; the stream silences also match ErrStreamTimeout. A deadline of
// the caller's own context gives context.DeadlineExceeded itself, not a TimeoutError.
type TimeoutError struct {
	// Bound names the bound that fired: TimeoutBoundCall, TimeoutBoundFirstByte or TimeoutBoundIdle.
	Bound   string
	Timeout time.Duration // its length
}

// The bounds a TimeoutError names.
const (
	TimeoutBoundCall      = "WithTimeout"                   // the whole call, retries included
	TimeoutBoundFirstByte = "WithStreamTimeouts first byte" // the wait for a stream's first byte
	TimeoutBoundIdle      = "WithStreamTimeouts idle"       // a silence between two reads of a stream
)

// Error names the bound that fired.
func (e *TimeoutError) Error() string {
	switch e.Bound {
	case TimeoutBoundFirstByte:
		return fmt.Sprintf("infergate: stream timed out: no answer within %s (%s)", e.Timeout, e.Bound)
	case TimeoutBoundIdle:
		return fmt.Sprintf("infergate: stream timed out: no data for %s (%s)", e.Timeout, e.Bound)
	}
	return fmt.Sprintf("infergate: call did not finish within %s (%s)", e.Timeout, e.Bound)
}

// Unwrap makes errors.Is(err, context.DeadlineExceeded) hold.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Is matches ErrStreamTimeout for the stream silences.
func (e *TimeoutError) Is(target error) bool {
	return target == ErrStreamTimeout && (e.Bound == TimeoutBoundFirstByte || e.Bound == TimeoutBoundIdle)
}

// callContext bounds a call that is not a stream, attempts, waits between them and the read of the
// answer included, by WithTimeout.
func (c *config) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	bound := &TimeoutError{Bound: TimeoutBoundCall, Timeout: c.timeout}
	return context.WithTimeoutCause(ctx, bound.Timeout, bound)
}

// timedOut says which bound ended a call that failed because its context ran out, keeping the
// failure it caused. An answer the server gave (an *APIError or *DecodeError) is returned as it is.
func timedOut(ctx context.Context, err error) error {
	var bound *TimeoutError
	if err == nil || ctx.Err() == nil || !errors.As(context.Cause(ctx), &bound) {
		return err
	}
	var apiErr *APIError
	var decodeErr *DecodeError
	if errors.As(err, &apiErr) || errors.As(err, &decodeErr) || errors.As(err, &bound) {
		return err
	}
	return errorf("infergate: %w: %w", bound, err)
}

// watchdog cancels a stream that stays silent too long: first the wait for its first byte, then
// each gap between reads. Reads only note the time; the timer, armed for the nearer of the two
// limits, checks the notes when it fires and re-arms itself while data keeps flowing. Re-arming it
// on every read instead would cost each chunk a timer update, and moving a timer earlier can wake
// the runtime's network poller with a system call, right on the path to the delta.
type watchdog struct {
	timer           *time.Timer
	start           time.Time
	lastRead        atomic.Int64 // nanoseconds after start of the last read that brought data; 0 before the first
	firstByte, idle time.Duration
	cancel          context.CancelCauseFunc
	stopped         atomic.Bool
}

// watch starts the watchdog of a stream that begins now.
func (w *watchdog) watch() {
	w.start = time.Now()
	// Armed only once assigned, because fire re-arms it.
	w.timer = time.AfterFunc(math.MaxInt64, w.fire)
	w.timer.Reset(min(w.firstByte, w.idle))
}

// stop ends the watch; a fire already under way does not re-arm the timer.
func (w *watchdog) stop() {
	w.stopped.Store(true)
	w.timer.Stop()
}

func (w *watchdog) fire() {
	if w.stopped.Load() {
		return
	}
	since := time.Since(w.start)
	if last := w.lastRead.Load(); last != 0 {
		silent := since - time.Duration(last)
		if silent < w.idle {
			w.timer.Reset(w.idle - silent)
			return
		}
		w.cancel(&TimeoutError{Bound: TimeoutBoundIdle, Timeout: w.idle})
		return
	}
	if since < w.firstByte {
		w.timer.Reset(min(w.firstByte-since, w.idle))
		return
	}
	w.cancel(&TimeoutError{Bound: TimeoutBoundFirstByte, Timeout: w.firstByte})
}

// watchedBody tells the watchdog whenever data arrives.
type watchedBody struct {
	io.ReadCloser
	dog *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		// max keeps 0 meaning "nothing read yet" even on a clock too coarse to have moved.
		b.dog.lastRead.Store(max(int64(time.Since(b.dog.start)), 1))
	}
	return n, err
}
