package infergate_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/jarcoal/httpmock"
)

// mockClient returns a client whose requests go to a fresh httpmock transport, under the retry loop.
func mockClient(t *testing.T, opts ...infergate.Option) (*infergate.Client, *httpmock.MockTransport) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	opts = append([]infergate.Option{infergate.WithAPIKey("sk-secret-key"),
		infergate.WithHTTPClient(&http.Client{Transport: mock}), infergate.WithMaxRetries(2)}, opts...)
	return testClient(t, "https://gw.test", opts...), mock
}

// sequence answers with the given responders in turn, repeating the last one.
func sequence(rs ...httpmock.Responder) httpmock.Responder {
	var n atomic.Int32
	return func(req *http.Request) (*http.Response, error) {
		i := int(n.Add(1)) - 1
		return rs[min(i, len(rs)-1)](req)
	}
}

func status(code int, body string, headers ...string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(code, body)
		for i := 0; i+1 < len(headers); i += 2 {
			resp.Header.Set(headers[i], headers[i+1])
		}
		return resp, nil
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

// testClient is the tests' one way to build a client: base URL baseURL, a test API key,
// no wait between retries (tests never sleep for one) and no retries (a retry would hide what one
// attempt did); opts come after those and win.
func testClient(t testing.TB, baseURL string, opts ...infergate.Option) *infergate.Client {
	t.Helper()
	all := append([]infergate.Option{infergate.WithAPIKey("sk-test-key"), infergate.WithBaseURL(baseURL),
		infergate.WithRetryBackoff(0, 0), infergate.WithMaxRetries(0)}, opts...)
	c, err := infergate.NewClient(all...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func captureCalls(mock *httpmock.MockTransport, method, url string, status int, body string, header http.Header) *[]captured {
	var mu sync.Mutex
	var seen []captured
	mock.RegisterResponder(method, url, func(r *http.Request) (*http.Response, error) {
		c := captured{url: r.URL.String(), auth: r.Header.Get("Authorization"), tenant: r.Header.Get("X-Tenant")}
		if r.Body != nil {
			raw, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(raw, &c.body)
		}
		mu.Lock()
		seen = append(seen, c)
		mu.Unlock()
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			resp.Header[k] = v
		}
		return resp, nil
	})
	return &seen
}
