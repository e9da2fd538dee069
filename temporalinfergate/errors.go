package temporalinfergate

import (
	"context"
	"errors"
	"net/http"
	"time"

	infergate "github.com/infergate/infergate-go"
	"go.temporal.io/sdk/temporal"
)

// The types of the *temporal.ApplicationError an activity fails with, which a workflow can test
// (ApplicationError.Type) or list in RetryPolicy.NonRetryableErrorTypes.
const (
	// ErrorTypeAPI is a call the gateway refused or failed: its details hold the
	// *infergate.APIError (status, request id, code, message, redacted headers and body), which
	// APIErrorOf reads. Retryable for 408, 409, 429 (after its Retry-After) and 5xx, not otherwise,
	// nor when it says the balance is spent (infergate.ErrInsufficientBalance), whatever its status.
	// When the worker's client falls back (WithFallbackModels), the activity is retryable if one of
	// the models' errors is, and its details are that model's.
	ErrorTypeAPI = "infergate.APIError"
	// ErrorTypeStream is an error the gateway sent inside a stream (an in-band error event): its
	// details hold the *infergate.StreamError. Retryable, as a stream cut short is, unless the
	// status it carries is a client error that ErrorTypeAPI would not retry.
	ErrorTypeStream = "infergate.StreamError"
	// ErrorTypeInvalid is a request refused before anything was sent (a *infergate.ValidationError,
	// its details): not retryable.
	ErrorTypeInvalid = "infergate.ValidationError"
	// ErrorTypeContextWindow is a request too long for its model's context window, refused before
	// it was sent or by the server (whose *infergate.APIError is then in the details, which
	// APIErrorOf reads): not retryable.
	ErrorTypeContextWindow = "infergate.ContextWindowError"
	// ErrorTypeToolLimit is a tool loop that reached one of its bounds: its details hold the
	// *infergate.ToolLimitError, which RunTools returns. Not retryable.
	ErrorTypeToolLimit = "infergate.ToolLimitError"
	// ErrorTypeRefused is any other call the SDK refused before sending it (amounts in two
	// currencies, a tool missing from the worker's registry, ...): not retryable.
	ErrorTypeRefused = "infergate.Refused"
	// ErrorTypeTransient is a failure that may pass: no response (a *infergate.TransportError), a
	// stream cut or timed out, an answer that could not be read. Retryable.
	ErrorTypeTransient = "infergate.Transient"
)

// classify turns what a call of the SDK returned into the error an activity fails with: a
// *temporal.ApplicationError whose type and retryability say what Temporal should do. The
// activity's own cancellation is returned as it is, for Temporal to report.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	c := classOf(err)
	var fallback *infergate.FallbackError
	if c.nonRetryable && errors.As(err, &fallback) {
		// The next attempt tries every model again: it may pass if one of them may answer then.
		for _, a := range fallback.Attempts {
			if ac := classOf(a.Err); !ac.nonRetryable {
				c = ac
				break
			}
		}
	}
	return fail(err, c.typ, c.nonRetryable, c.next, c.details...)
}

// class is what an error tells Temporal: its type, whether it may pass, after how long, and the
// details the workflow reads.
type class struct {
	typ          string
	nonRetryable bool
	next         time.Duration
	details      []any
}

func classOf(err error) class {
	var (
		api    *infergate.APIError
		bad    *infergate.ValidationError
		limit  *infergate.ToolLimitError
		inBand *infergate.StreamError
		window = errors.Is(err, infergate.ErrContextWindow)
	)
	switch {
	case errors.As(err, &limit):
		return class{ErrorTypeToolLimit, true, 0, []any{limit}}
	case window && errors.As(err, &api):
		return class{ErrorTypeContextWindow, true, 0, []any{api}}
	case window:
		return class{ErrorTypeContextWindow, true, 0, nil}
	case errors.As(err, &api):
		// A balance spent is spent until someone pays, whatever status carried it.
		final := !retryableStatus(api.StatusCode) || errors.Is(api, infergate.ErrInsufficientBalance)
		return class{ErrorTypeAPI, final, api.RetryAfter, []any{api}}
	case errors.As(err, &bad):
		return class{ErrorTypeInvalid, true, 0, []any{bad}}
	case errors.As(err, &inBand):
		final := inBand.StatusCode != 0 && !retryableStatus(inBand.StatusCode) || errors.Is(inBand, infergate.ErrInsufficientBalance)
		return class{ErrorTypeStream, final, 0, []any{inBand}}
	case errors.Is(err, infergate.ErrCurrencyMismatch):
		return class{ErrorTypeRefused, true, 0, nil}
	}
	return class{ErrorTypeTransient, false, 0, nil}
}

// retryableStatus reports whether an answer of this status may be different next time: a timeout,
// a conflict, a rate limit, a server's failure; or an error body in a successful status, which the
// gateway sends when a provider failed. Every other client error says the request is wrong.
func retryableStatus(status int) bool {
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooManyRequests:
		return true
	case status >= 500, status < 400:
		return true
	}
	return false
}

func fail(err error, typ string, nonRetryable bool, next time.Duration, details ...any) error {
	return temporal.NewApplicationErrorWithOptions(err.Error(), typ, temporal.ApplicationErrorOptions{
		NonRetryable: nonRetryable, NextRetryDelay: next, Details: details})
}

// APIErrorOf returns the *infergate.APIError an activity of this package failed with, read from
// the details of the *temporal.ApplicationError that err wraps (as workflow.ExecuteActivity's
// future returns it, inside a *temporal.ActivityError): an ErrorTypeAPI's, or an
// ErrorTypeContextWindow's when the server refused the request. False when err holds none.
func APIErrorOf(err error) (*infergate.APIError, bool) {
	var api infergate.APIError
	if !detailsOf(err, ErrorTypeAPI, &api) && !detailsOf(err, ErrorTypeContextWindow, &api) {
		return nil, false
	}
	return &api, true
}

// detailsOf decodes into v the details of the application error of type typ that err wraps.
func detailsOf(err error, typ string, v any) bool {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != typ || !app.HasDetails() {
		return false
	}
	return app.Details(v) == nil
}
