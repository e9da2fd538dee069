package infergate_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
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
