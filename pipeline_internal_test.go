package infergate

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const (
	secretKey = "sk-live-SECRETKEY0123456789abcdef"
	secretJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTRUNSRVRKV1QifQ.c2lnbmF0dXJlU0VDUkVU"
)

func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// authRecorder is a server that remembers the Authorization header of each path it served.
type authRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string][]string
}

func newAuthRecorder(t *testing.T, handler http.HandlerFunc) *authRecorder {
	a := &authRecorder{seen: map[string][]string{}}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.seen[r.URL.Path] = append(a.seen[r.URL.Path], r.Header.Get("Authorization"))
		a.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *authRecorder) auth(path string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seen[path]
}

// everyRoute calls each service method once; errors from the canned answers do not matter here,
// only which credential each request carried.
var everyRoute = map[string]func(context.Context, *Client){
	"Chat.Create": func(ctx context.Context, c *Client) {
		_, _ = c.Chat.Create(ctx, ChatRequest{Messages: []Message{UserMessage("x")}})
	},
	"Chat.Stream": func(ctx context.Context, c *Client) { _, _ = streamText(ctx, c, "x") },
	"Audio.Transcribe": func(ctx context.Context, c *Client) {
		_, _ = c.Audio.Transcribe(ctx, TranscriptionRequest{File: strings.NewReader("RIFF"), FileName: "a.wav"})
	},
	"Models.List": func(ctx context.Context, c *Client) { _, _ = c.Models.List(ctx) },
	"Bids.Rated":  func(ctx context.Context, c *Client) { _, _ = c.Bids.Rated(ctx, "0x"+strings.Repeat("ab", 32)) },
	"Sessions.CreateFromBid": func(ctx context.Context, c *Client) {
		_, _ = c.Sessions.CreateFromBid(ctx, "0x"+strings.Repeat("cd", 32), SessionOptions{})
	},
	"Models.Get": func(ctx context.Context, c *Client) { _, _ = c.Models.Get(ctx, "llama-3.3-70b") },
	"Sessions.CreateForModel": func(ctx context.Context, c *Client) {
		_, _ = c.Sessions.CreateForModel(ctx, "llama-3.3-70b", SessionOptions{})
	},
	"Sessions.Ping":  func(ctx context.Context, c *Client) { _, _ = c.Sessions.Ping(ctx) },
	"Sessions.Close": func(ctx context.Context, c *Client) { _, _ = c.Sessions.Close(ctx) },
	"History.Create": func(ctx context.Context, c *Client) { _, _ = c.History.Create(ctx, "t") },
	"History.Get":    func(ctx context.Context, c *Client) { _, _ = c.History.Get(ctx, "c1") },
	"History.Rename": func(ctx context.Context, c *Client) { _, _ = c.History.Rename(ctx, "c1", "t") },
	"History.List": func(ctx context.Context, c *Client) {
		for range c.History.List(ctx) {
		}
	},
	"History.Archive": func(ctx context.Context, c *Client) { _ = c.History.Archive(ctx, "c1") },
	"History.Delete":  func(ctx context.Context, c *Client) { _ = c.History.Delete(ctx, "c1") },
	"History.AddMessage": func(ctx context.Context, c *Client) {
		_, _ = c.History.AddMessage(ctx, "c1", AddMessageRequest{Role: RoleUser, Content: "x"})
	},
	"History.Messages": func(ctx context.Context, c *Client) {
		for range c.History.Messages(ctx, "c1") {
		}
	},
}

// TestAccessTokenOnlyForHistory calls every service method with both credentials set and checks
// each request: chat-history routes carry the JWT, every other route the API key and never the
// JWT. Without a JWT, chat-history routes fall back to the API key.
func TestAccessTokenOnlyForHistory(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	type seen struct{ path, auth string }
	var requests []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, seen{r.URL.Path, r.Header.Get("Authorization")})
		mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	for _, jwt := range []string{secretJWT, ""} {
		client, _ := newTestClient(t, srv.URL, WithAPIKey(secretKey), WithAccessToken(jwt), WithMaxRetries(0), WithCatalogTTL(0))
		for name, call := range everyRoute {
			mu.Lock()
			requests = nil
			mu.Unlock()
			call(context.Background(), client)
			mu.Lock()
			got := requests
			mu.Unlock()
			if len(got) == 0 {
				t.Errorf("%s (JWT set: %v) sent no request", name, jwt != "")
			}
			for _, req := range got {
				want := "Bearer " + secretKey
				if jwt != "" && strings.HasPrefix(req.path, "/api/v1/chat-history/") {
					want = "Bearer " + jwt
				}
				if req.auth != want {
					t.Errorf("%s (JWT set: %v): %s carried %q, want %q", name, jwt != "", req.path, req.auth, want)
				}
			}
		}
	}
}

// renameChat is a chat-history call, which takes the JWT when one is set.
func renameChat(c *Client) error {
	_, err := c.History.Rename(context.Background(), "c1", "title")
	return err
}

// failingReaderAt is an upload whose reads fail, as a file on a dying disk does.
type failingReaderAt struct{ reads atomic.Int64 }

func (f *failingReaderAt) Read([]byte) (int, error) { return 0, errors.New("unused") }

func (f *failingReaderAt) ReadAt([]byte, int64) (int, error) {
	f.reads.Add(1)
	return 0, errors.New("input/output error")
}

func (f *failingReaderAt) Size() int64 { return 1 << 20 }

// TestUnknownAuthorityNotRetried calls a TLS server whose certificate the client does not trust:
// one connection, no retries.
func TestUnknownAuthorityNotRetried(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `[]`)
	}))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = nil
	srv.StartTLS()
	t.Cleanup(srv.Close)
	client, _ := newTestClient(t, srv.URL, WithRetryBackoff(10*time.Millisecond, 10*time.Millisecond))
	_, err := client.Models.List(t.Context())
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("err = %v, want a certificate error", err)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("server saw %d connections, want 1 (no retry)", got)
	}
}

func (d Decimal) scaleForTest() int { return int(d.scale) }

// TestEmptyErrorKeyIsSuccess answers 200 with an "error" key that reports nothing: the call succeeds.
func TestEmptyErrorKeyIsSuccess(t *testing.T) {
	t.Parallel()
	for _, value := range []string{`""`, `false`, `null`, `{}`, `[]`} {
		srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
			body := strings.TrimSuffix(completionJSON("fine"), "}") + `,"error":` + value + `}`
			_, _ = io.WriteString(w, body)
		})
		client, _ := newTestClient(t, srv.URL)
		resp, err := client.Chat.Create(t.Context(), ChatRequest{Messages: []Message{UserMessage("x")}})
		if err != nil || resp.Text() != "fine" {
			t.Errorf(`"error": %s: got %v, %v; want the answer`, value, resp, err)
		}
	}
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"error":"quota exhausted"}`)
	})
	client, _ := newTestClient(t, srv.URL)
	var apiErr *APIError
	if _, err := client.Chat.Create(t.Context(), ChatRequest{Messages: []Message{UserMessage("x")}}); !errors.As(err, &apiErr) || apiErr.Message != "quota exhausted" {
		t.Errorf("a real error in a 200: got %v", err)
	}
}

// hijack takes the raw connection so that a test can write a broken response by hand.
func hijack(t *testing.T, w http.ResponseWriter) (net.Conn, *bufio.ReadWriter) {
	conn, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
	}
	return conn, rw
}

// resetConn closes with SO_LINGER 0, so that the peer sees a TCP reset rather than a clean close.
func resetConn(conn net.Conn) {
	_ = conn.(*net.TCPConn).SetLinger(0)
	_ = conn.Close()
}

// writeRawThenReset sends bytes on a hijacked connection and then resets it.
func writeRawThenReset(t *testing.T, w http.ResponseWriter, raw string) {
	conn, rw := hijack(t, w)
	_, _ = rw.WriteString(raw)
	_ = rw.Flush()
	resetConn(conn)
}

// stall holds the response open until the client goes away, with a bound so that no test can hang.
func stall(r *http.Request) {
	// The server notices a client that went away only once the request body has been read.
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

func failWith(status int, header ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
	}
}

const htmlPage = "<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>"

type createFault struct {
	name     string
	handler  func(t *testing.T, hit int64, w http.ResponseWriter, r *http.Request)
	call     []Option
	wantHits int64
	check    func(t *testing.T, resp *ChatCompletion, err error)
}

func wantAPIError(status int, sentinel error, text string) func(*testing.T, *ChatCompletion, error) {
	return func(t *testing.T, _ *ChatCompletion, err error) {
		t.Helper()
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
			t.Fatalf("got %v, want an *APIError with status %d", err, status)
		}
		if sentinel != nil && !errors.Is(err, sentinel) {
			t.Errorf("%v does not match %v", err, sentinel)
		}
		if !strings.Contains(err.Error(), text) {
			t.Errorf("error %q does not say %q", err, text)
		}
	}
}

func wantText(text string) func(*testing.T, *ChatCompletion, error) {
	return func(t *testing.T, resp *ChatCompletion, err error) {
		t.Helper()
		if err != nil || resp.Text() != text {
			t.Fatalf("got %v, %v; want answer %q", resp, err, text)
		}
	}
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// TestCreateFaults drives Create against servers that fail in the ways real networks and gateways
// do. Each call must return, with a typed error that says what happened, after retrying only
// failures that happened before any answer arrived, and without leaking goroutines or connections.
func TestCreateFaults(t *testing.T) {
	t.Parallel()
	tests := []createFault{{
		name: "reset before headers is retried, then reported",
		handler: func(t *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			conn, _ := hijack(t, w)
			resetConn(conn)
		},
		wantHits: 3,
		check: func(t *testing.T, _ *ChatCompletion, err error) {
			var urlErr *url.Error
			if !errors.As(err, &urlErr) || !isReset(err) || !strings.Contains(err.Error(), "giving up after 3 attempts") {
				t.Fatalf("got %v, want a connection reset after 3 attempts", err)
			}
		},
	}, {
		name: "reset after headers is not retried",
		handler: func(t *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			writeRawThenReset(t, w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"id\":")
		},
		wantHits: 1,
		check: func(t *testing.T, _ *ChatCompletion, err error) {
			if !isReset(err) || !strings.Contains(err.Error(), "reading /chat/completions response") {
				t.Fatalf("got %v, want a reset while reading the response", err)
			}
		},
	}, {
		name:     "stall before headers ends at the call timeout",
		handler:  func(_ *testing.T, _ int64, _ http.ResponseWriter, r *http.Request) { stall(r) },
		call:     []Option{WithTimeout(300 * time.Millisecond)},
		wantHits: 1,
		check: func(t *testing.T, _ *ChatCompletion, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v, want context.DeadlineExceeded", err)
			}
		},
	}, {
		name: "headers then nothing ends at the call timeout",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			stall(r)
		},
		call:     []Option{WithTimeout(300 * time.Millisecond)},
		wantHits: 1,
		check: func(t *testing.T, _ *ChatCompletion, err error) {
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "reading") {
				t.Fatalf("got %v, want context.DeadlineExceeded while reading", err)
			}
		},
	}, {
		name: "5xx storm then success",
		handler: func(_ *testing.T, hit int64, w http.ResponseWriter, _ *http.Request) {
			if hit <= 3 {
				failWith(http.StatusServiceUnavailable)(w)
				return
			}
			_, _ = io.WriteString(w, completionJSON("recovered"))
		},
		call:     []Option{WithMaxRetries(3)},
		wantHits: 4,
		check:    wantText("recovered"),
	}, {
		name: "5xx storm outlasting the retries",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			failWith(http.StatusBadGateway)(w)
		},
		wantHits: 3,
		check:    wantAPIError(http.StatusBadGateway, ErrServer, "overloaded"),
	}, {
		name: "Retry-After storm then success",
		handler: func(_ *testing.T, hit int64, w http.ResponseWriter, _ *http.Request) {
			if hit <= 2 {
				failWith(http.StatusTooManyRequests, "Retry-After-Ms", "20")(w)
				return
			}
			_, _ = io.WriteString(w, completionJSON("after the storm"))
		},
		wantHits: 3,
		check:    wantText("after the storm"),
	}, {
		name: "Retry-After beyond the limit is returned at once",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			failWith(http.StatusTooManyRequests, "Retry-After", "3600")(w)
		},
		wantHits: 1,
		check:    wantAPIError(http.StatusTooManyRequests, ErrRateLimited, "retry after 1h0m0s"),
	}, {
		name: "Retry-After too large for a Duration is not a negative wait",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			failWith(http.StatusTooManyRequests, "Retry-After", "99999999999999")(w)
		},
		wantHits: 1,
		check:    wantAPIError(http.StatusTooManyRequests, ErrRateLimited, "retry after"),
	}, {
		name: "Retry-After past the call's deadline is not waited out",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			failWith(http.StatusServiceUnavailable, "Retry-After", "30")(w)
		},
		call:     []Option{WithTimeout(2 * time.Second)},
		wantHits: 1,
		check:    wantAPIError(http.StatusServiceUnavailable, ErrServer, "retry after 30s"),
	}, {
		name: "JSON content type with an HTML body",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, htmlPage)
		},
		wantHits: 1,
		check: func(t *testing.T, _ *ChatCompletion, err error) {
			var decodeErr *DecodeError
			if !errors.As(err, &decodeErr) || decodeErr.StatusCode != http.StatusOK || string(decodeErr.Body) != htmlPage {
				t.Errorf("got %v, want a *DecodeError keeping the body", err)
			}
		},
	}, {
		name: "HTML error page from a proxy",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, htmlPage)
		},
		wantHits: 3,
		check:    wantAPIError(http.StatusBadGateway, ErrServer, "502 Bad Gateway"),
	}, {
		name: "client error is not retried",
		handler: func(_ *testing.T, _ int64, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"bad model","code":"model_not_found"}}`)
		},
		wantHits: 1,
		check:    wantAPIError(http.StatusBadRequest, nil, "model_not_found"),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCountedServer(t, func(hit int64, w http.ResponseWriter, r *http.Request) { tc.handler(t, hit, w, r) })
			client, _ := newTestClient(t, srv.URL)
			type result struct {
				resp *ChatCompletion
				err  error
			}
			res := within(t, 10*time.Second, func() result {
				resp, err := client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("hi")}}, tc.call...)
				return result{resp, err}
			})
			tc.check(t, res.resp, res.err)
			if got := srv.hits.Load(); got != tc.wantHits {
				t.Errorf("server saw %d requests, want %d", got, tc.wantHits)
			}
		})
	}
}

// TestConnectionRefused checks the error for a gateway that is not there at all.
func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client, _ := newTestClient(t, "http://"+addr)
	err = within(t, 10*time.Second, func() error {
		_, err := client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("hi")}})
		return err
	})
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Fatalf("got %v, want connection refused after 3 attempts", err)
	}
}
