package infergate

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultTimeout bounds every call that is not a stream, unless WithTimeout sets another bound. It is
// long because a gateway's first byte can take minutes while a cold model starts.
const DefaultTimeout = 10 * time.Minute

// TimeoutError is a call that did not finish within its bound: WithTimeout's, the client's or the
// call's (DefaultTimeout unless set). It matches context.DeadlineExceeded. A deadline of the
// caller's own context gives context.DeadlineExceeded itself; streams end with ErrStreamTimeout.
type TimeoutError struct {
	Option  string        // which bound fired: "WithTimeout"
	Timeout time.Duration // its length
}

// Error names the bound that fired.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("infergate: call did not finish within %s (%s)", e.Timeout, e.Option)
}

// Unwrap makes errors.Is(err, context.DeadlineExceeded) hold.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// callContext bounds a call that is not a stream, attempts, waits between them and the read of the
// answer included, by WithTimeout.
func (c *Client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	bound := &TimeoutError{Option: "WithTimeout", Timeout: c.cfg.timeout}
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
