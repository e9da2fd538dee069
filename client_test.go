package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/infergate/infergate-go"
)

func TestBaseURL(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"https://gw.test", "https://gw.test/", "https://gw.test/api/v1", "https://gw.test/api/v1/"} {
		t.Run(base, func(t *testing.T) {
			c, mock := mockClient(t, infergate.WithBaseURL(base))
			mock.RegisterResponder(http.MethodPost, chatURL, status(200, okCompletion))
			if _, err := c.Chat.Create(context.Background(), hello()); err != nil {
				t.Fatalf("request did not reach %s: %v", chatURL, err)
			}
		})
	}
	for _, bad := range []string{"gw.test", "ftp://gw.test", "https://", "://x", "https://user:pw@gw.test"} {
		t.Run("invalid "+bad, func(t *testing.T) {
			var verr *infergate.ValidationError
			if _, err := infergate.NewClient(infergate.WithBaseURL(bad)); !errors.As(err, &verr) || verr.Field != "BaseURL" {
				t.Errorf("err = %v, want a BaseURL ValidationError", err)
			}
		})
	}
}

func TestEnvironmentDefaults(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "sk-from-env")
	t.Setenv("INFERGATE_BASE_URL", "https://env.test")
	var auth string
	mockT := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		auth = r.Header.Get("Authorization")
		if r.URL.String() != "https://env.test/api/v1/chat/completions" {
			return nil, fmt.Errorf("unexpected URL %s", r.URL)
		}
		return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}, nil
	})
	c, err := infergate.NewClient(infergate.WithHTTPClient(&http.Client{Transport: mockT}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat.Create(context.Background(), hello()); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer sk-from-env" {
		t.Errorf("Authorization = %q", auth)
	}
}

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestMissingAPIKey(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	c, mock := mockClient(t, infergate.WithAPIKey(""))
	_, err := c.Chat.Create(context.Background(), hello())
	var verr *infergate.ValidationError
	if !errors.As(err, &verr) || verr.Field != "APIKey" || mock.GetTotalCallCount() != 0 {
		t.Errorf("err = %v after %d calls, want an APIKey ValidationError before sending", err, mock.GetTotalCallCount())
	}
}
