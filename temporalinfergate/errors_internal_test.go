package temporalinfergate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"go.temporal.io/sdk/temporal"
)

// Over every status a server can send, alone or inside a fallback's error: only 408, 409, 429 and
// the server errors among the error statuses are retried, an error in a successful status too, and
// the wait a retryable answer asked for is the next delay.
func TestClassifyEveryStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for status := 100; status < 600; status++ {
		api := &infergate.APIError{StatusCode: status, RetryAfter: 3 * time.Second, Message: "x"}
		for _, err := range []error{api, fmt.Errorf("wrapped: %w", api),
			&infergate.FallbackError{Attempts: []infergate.ModelAttempt{{Model: "m", Err: api}}}} {
			var app *temporal.ApplicationError
			if !errors.As(classify(ctx, err), &app) || app.Type() != ErrorTypeAPI {
				t.Fatalf("status %d (%T): %v", status, err, classify(ctx, err))
			}
			clientError := status >= 400 && status < 500 &&
				status != http.StatusRequestTimeout && status != http.StatusConflict && status != http.StatusTooManyRequests
			if app.NonRetryable() != clientError {
				t.Errorf("status %d: non-retryable %v", status, app.NonRetryable())
			}
			if !clientError && app.NextRetryDelay() != 3*time.Second {
				t.Errorf("status %d: next delay %s", status, app.NextRetryDelay())
			}
		}
	}
}

// The activity's own cancellation is returned as it is, for Temporal to report as such; nil stays nil.
func TestClassifyKeepsCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := &infergate.TransportError{Method: "POST", Path: "/x", Err: context.Canceled}
	if got := classify(ctx, err); got != error(err) {
		t.Errorf("classify = %v", got)
	}
	if classify(ctx, nil) != nil {
		t.Error("nil became an error")
	}
}
