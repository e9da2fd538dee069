package infergate

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

// roundTripFunc answers requests in memory, so that fuzzing does not pay for sockets.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// chunkedBody hands out its data in pseudo-random pieces, as TCP reads would.
type chunkedBody struct {
	data []byte
	rng  *rand.Rand
}

func (c *chunkedBody) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(1+c.rng.IntN(64), len(c.data), len(p))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func (c *chunkedBody) Close() error { return nil }

// sseEvents renders data payloads as a stream body.
func sseEvents(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

// contentChunk is a stream event adding text to the answer; a non-empty finish ends the choice.
func contentChunk(text, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` +
		strconv.Quote(text) + `},"finish_reason":` + f + `}]}`
}

// completionJSON is a non-streamed answer saying text.
func completionJSON(text string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":` + strconv.Quote(text) + `},"finish_reason":"stop"}]}`
}

// countedServer is a loopback test server that counts requests and new connections.
type countedServer struct {
	*httptest.Server
	hits  atomic.Int64
	conns atomic.Int64
}

// newCountedServer starts a server whose handler is told which request (1, 2, ...) it is serving.
func newCountedServer(t *testing.T, handler func(hit int64, w http.ResponseWriter, r *http.Request)) *countedServer {
	t.Helper()
	s := &countedServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler(s.hits.Add(1), w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// testClient is the tests' one way to build a client: base URL baseURL, a test API key,
// no wait between retries (tests never sleep for one) and no retries (a retry would hide what one
// attempt did); opts come after those and win.
func testClient(t testing.TB, baseURL string, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithAPIKey("sk-test-key"), WithBaseURL(baseURL),
		WithRetryBackoff(0, 0), WithMaxRetries(0)}, opts...)
	c, err := NewClient(all...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// newTestClient returns a testClient of srv with the SDK's default retries and its own transport,
// closed when the test ends so that idle connections do not count as leaks.
func newTestClient(t *testing.T, baseURL string, opts ...Option) (*Client, *http.Transport) {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	all := append([]Option{WithHTTPClient(&http.Client{Transport: tr}), WithMaxRetries(2)}, opts...)
	return testClient(t, baseURL, all...), tr
}

// within fails the test if call does not return in time: a hang is a failure, not a stuck test.
func within[T any](t *testing.T, limit time.Duration, call func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- call() }()
	select {
	case v := <-done:
		return v
	case <-time.After(limit):
		t.Fatalf("call did not return within %s", limit)
		var zero T
		return zero
	}
}

// recordAll answers every request with status and body and records it.
func recordAll(t *testing.T, status int, body string, contentType string) (*httpmock.MockTransport, func() []wireCall) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	var mu sync.Mutex
	var calls []wireCall
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		var sent []byte
		if req.Body != nil {
			sent, _ = io.ReadAll(req.Body)
		}
		mu.Lock()
		calls = append(calls, wireCall{req.Method, req.URL.String(), req.Header.Get("Authorization"),
			req.Header.Get("Content-Type"), req.Header.Get("Accept"), string(sent)})
		mu.Unlock()
		resp := httpmock.NewStringResponse(status, body)
		if contentType != "" {
			resp.Header.Set("Content-Type", contentType)
		}
		return resp, nil
	})
	return mock, func() []wireCall {
		mu.Lock()
		defer mu.Unlock()
		return append([]wireCall(nil), calls...)
	}
}

func mockClient(t testing.TB, mock *httpmock.MockTransport, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithHTTPClient(&http.Client{Transport: mock}), WithAPIKey(catalogAPIKey)}, opts...)
	return testClient(t, catalogAPIRoot, all...)
}

// inProcess serves requests with a handler in this process, without a network, so that tests of
// time limits run inside a testing/synctest bubble, where time is fake and waits take no time. The
// handler's request context ends when the client gives up on the request or closes the body.
type inProcess struct{ handler http.Handler }

// Client returns an HTTP client on the handler, for WithHTTPClient.
func (p inProcess) Client() *http.Client { return &http.Client{Transport: p} }

// InProcessClient is an HTTP client served by handler in this process, for the external tests.
func InProcessClient(handler http.Handler) *http.Client { return inProcess{handler}.Client() }

func (p inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	served := req.Clone(ctx)
	if served.Body == nil {
		served.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	w := &pipeResponse{header: http.Header{}, body: pw, started: make(chan struct{})}
	go func() {
		defer cancel()
		p.handler.ServeHTTP(w, served)
		w.WriteHeader(http.StatusOK)
		pw.CloseWithError(req.Context().Err()) // nil, the end of the body, unless the client gave up
	}()
	select {
	case <-w.started:
	case <-req.Context().Done():
		cancel()
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	// As over a network, the answer breaks off when the request's context ends.
	stop := context.AfterFunc(req.Context(), func() { pr.CloseWithError(req.Context().Err()) })
	body := &pipeBody{PipeReader: pr, cancel: func() { stop(); cancel() }}
	return &http.Response{StatusCode: w.status, Status: http.StatusText(w.status), Header: w.sent,
		Body: body, Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: -1}, nil
}

// pipeResponse is the handler's side: headers are sent with the first write, flush or status.
type pipeResponse struct {
	header  http.Header
	sent    http.Header
	status  int
	body    *io.PipeWriter
	started chan struct{}
}

func (w *pipeResponse) Header() http.Header { return w.header }

func (w *pipeResponse) WriteHeader(status int) {
	if w.sent == nil {
		w.status, w.sent = status, w.header.Clone()
		close(w.started)
	}
}

func (w *pipeResponse) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

func (w *pipeResponse) Flush() { w.WriteHeader(http.StatusOK) }

// pipeBody ends the handler's request when the client closes the body.
type pipeBody struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (b *pipeBody) Close() error {
	b.cancel()
	return b.PipeReader.CloseWithError(errors.New("body closed"))
}

// Scaled returns n, or a tenth of it (at least 1) under the race detector: for tests whose point is
// volume (thousands of random streams, 40 MiB lines), which the detector makes ten times dearer
// without finding anything more.
func Scaled(n int) int {
	if raceEnabled {
		return max(n/10, 1)
	}
	return n
}
