package infergate_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/jarcoal/httpmock"
)

func TestMiddlewareWrapsEveryAttemptInOrder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var trace []string
	mw := func(name string) infergate.Middleware {
		return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			mu.Lock()
			trace = append(trace, name+">")
			mu.Unlock()
			req.Header.Set("X-Traced-By-"+name, "yes")
			resp, err := next(req)
			mu.Lock()
			trace = append(trace, "<"+name)
			mu.Unlock()
			return resp, err
		}
	}
	client, mock := mockClient(t, infergate.WithMiddleware(mw("a")))
	attempts := 0
	mock.RegisterResponder(http.MethodPost, chatURL, func(r *http.Request) (*http.Response, error) {
		attempts++
		if r.Header.Get("X-Traced-By-a") != "yes" || r.Header.Get("X-Traced-By-b") != "yes" {
			t.Errorf("attempt %d was not traced by both", attempts)
		}
		if attempts == 1 {
			return httpmock.NewStringResponse(503, `{"error":"busy"}`), nil
		}
		return httpmock.NewStringResponse(200, okCompletion), nil
	})
	if _, err := client.Chat.Create(context.Background(), hello(), infergate.WithMiddleware(mw("b"))); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(trace, " "); got != "a> b> <b <a a> b> <b <a" {
		t.Errorf("trace %q, want both middlewares around each of the 2 attempts, a outermost", got)
	}
}

// A stand-in answers a call that has no credential; one it passes on fails with the missing key
// before anything is sent, as without a stand-in.
func TestStandInNeedsNoCredential(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_ACCESS_TOKEN", "")
	answer := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		if req.Header.Get("Authorization") != "" {
			t.Errorf("a call with no credential went out with Authorization %q", req.Header.Get("Authorization"))
		}
		if strings.HasSuffix(req.URL.Path, "/chat/completions") {
			return next(req)
		}
		return httpmock.NewStringResponse(200, `{"object":"list","data":[{"id":"m1"}]}`), nil
	}
	client, mock := mockClient(t, infergate.WithAPIKey(""), infergate.WithStandIn(answer))
	if models, err := client.Models.List(context.Background()); err != nil || len(models) != 1 {
		t.Fatalf("Models.List answered by the stand-in: %v, %v", models, err)
	}
	_, err := client.Chat.Create(context.Background(), hello())
	var invalid *infergate.ValidationError
	if !errors.As(err, &invalid) || invalid.Field != "APIKey" || mock.GetTotalCallCount() != 0 {
		t.Fatalf("a call passed on without a key: %v after %d requests, want the APIKey *ValidationError before sending", err, mock.GetTotalCallCount())
	}
	var transportErr *infergate.TransportError
	if errors.As(err, &transportErr) {
		t.Fatalf("the missing key is reported as a *TransportError: %v", err)
	}
}

// A stand-in's own error is the call's error, tried once; an error from the network it passed the
// request to is still a *TransportError, retried.
func TestStandInErrorIsTheCallsError(t *testing.T) {
	t.Parallel()
	own := errors.New("stand-in: no recording of this request")
	var calls atomic.Int32
	answer := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		calls.Add(1)
		if strings.HasSuffix(req.URL.Path, "/chat/completions") {
			return nil, own
		}
		return next(req)
	}
	client, mock := mockClient(t, infergate.WithStandIn(answer), infergate.WithRetryBackoff(0, 0))
	_, err := client.Chat.Create(context.Background(), hello())
	if err != own || calls.Load() != 1 {
		t.Fatalf("got %v after %d attempts, want the stand-in's error itself, once", err, calls.Load())
	}
	mock.RegisterNoResponder(func(*http.Request) (*http.Response, error) { return nil, errors.New("connection refused") })
	_, err = client.Models.List(context.Background())
	var transportErr *infergate.TransportError
	if !errors.As(err, &transportErr) || calls.Load() != 4 {
		t.Fatalf("a network failure past the stand-in gave %v after %d attempts, want a *TransportError after 3", err, calls.Load()-1)
	}
}
