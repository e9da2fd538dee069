package infergate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"time"
)

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
