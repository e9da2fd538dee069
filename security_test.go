package infergate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	secretKey = "sk-live-SECRETKEY0123456789abcdef"
	secretJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTRUNSRVRKV1QifQ.c2lnbmF0dXJlU0VDUkVU"
)

// assertNoSecret fails if s carries either credential, or a recognisable piece of one.
func assertNoSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, secret := range []string{secretKey, secretJWT, "SECRETKEY0123456789", "eyJzdWIiOiJTRUNSRVRKV1QifQ"} {
		if strings.Contains(s, secret) {
			t.Errorf("%s leaks a credential: %s", what, s)
		}
	}
}

// leakyServer fails in every way that produces an error or a log record: 401 (echoing the
// credential back, as some servers do), a 503 that is retried, and a stream with an error event.
func leakyServer(t *testing.T) *countedServer {
	return newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.Header.Get("X-Scenario") {
		case "401":
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"detail":"Invalid API key"}`)
		case "401-echo":
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","param":%q,"code":"invalid_api_key"}}`,
				strings.TrimPrefix(auth, "Bearer "), auth)
		case "503":
			failWith(http.StatusServiceUnavailable)(w)
		case "stream":
			streamHeaders(w)
			_, _ = io.WriteString(w, sseEvents(contentChunk("hi", ""), `{"error":{"message":"provider failed","type":"provider_error","status":502}}`))
		}
	})
}

// TestCredentialsNeverLeak gathers every error, log record (at debug level, text and JSON) and
// formatting of the client the SDK can produce in the failure paths, and looks for the API key and
// the JWT in them.
func TestCredentialsNeverLeak(t *testing.T) {
	handlers := map[string]func(io.Writer) slog.Handler{
		"text": func(w io.Writer) slog.Handler {
			return slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
		"json": func(w io.Writer) slog.Handler {
			return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
	}
	for name, newHandler := range handlers {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(newHandler(&logs))
			srv := leakyServer(t)
			client, _ := newTestClient(t, srv.URL, WithAPIKey(secretKey), WithAccessToken(secretJWT), WithLogger(logger),
				WithMaxRetries(1), WithStreamTimeouts(200*time.Millisecond, 200*time.Millisecond))
			var outputs []string
			record := func(what string, err error) {
				if err == nil {
					t.Errorf("%s: expected an error", what)
					return
				}
				outputs = append(outputs, fmt.Sprintf("%s: %v | %+v | %#v", what, err, err, err))
			}
			chat := func(scenario string) error {
				_, err := client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("x")}}, WithHeader("X-Scenario", scenario))
				return err
			}
			for _, scenario := range []string{"401", "401-echo", "503"} {
				record(scenario, chat(scenario))
			}
			if err := chat("401-echo"); err == nil || !strings.Contains(err.Error(), "Incorrect API key provided: [redacted]") {
				t.Errorf("echoed key: got %v, want the message with the key redacted", err)
			}
			_, err := client.Chat.Stream(context.Background(), ChatRequest{Messages: []Message{UserMessage("x")}}, WithHeader("X-Scenario", "401"))
			record("stream 401", err)
			_, err = streamText(context.Background(), client, "x", WithHeader("X-Scenario", "stream"))
			record("stream error event", err)
			_, err = client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("x")}, Temperature: Ptr(9.0)})
			record("validation", err)
			refused, _ := newTestClient(t, "http://"+closedAddr(t), WithAPIKey(secretKey), WithAccessToken(secretJWT), WithLogger(logger))
			_, err = refused.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("x")}})
			record("connection refused", err)
			logger.Debug("a user logging the client", "client", client, "chat", client.Chat)
			outputs = append(outputs, fmt.Sprintf("%v %+v %#v %v %+v", client, client, client, *client, *client.Chat))
			for _, out := range outputs {
				assertNoSecret(t, "output", out)
			}
			assertNoSecret(t, "logs", logs.String())
			for _, want := range []string{"infergate: retrying", "infergate: request failed", "skipped an error event"} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("logs lack %q, so the test did not exercise that path:\n%s", want, logs.String())
				}
			}
		})
	}
}

// TestCredentialsNotInPanics checks that a panic raised while a call is in flight (here by the
// user's own transport) reaches the caller unchanged and that its stack trace, which a crash
// prints, does not show the credentials: the SDK never passes them as string arguments.
func TestCredentialsNotInPanics(t *testing.T) {
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) { panic("transport exploded") })
	client, err := NewClient(WithAPIKey(secretKey), WithAccessToken(secretJWT), WithBaseURL("https://gateway.test"),
		WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	var recovered any
	var stack []byte
	func() {
		defer func() { recovered, stack = recover(), debug.Stack() }()
		_, _ = client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("x")}})
	}()
	if recovered != "transport exploded" {
		t.Fatalf("recovered %v, want the transport's panic", recovered)
	}
	assertNoSecret(t, "panic stack", string(stack))
}

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

// TestAPIKeyNotForwardedToAnotherHost redirects calls from 127.0.0.1 to a server reached as
// localhost, a different host, and to another port of 127.0.0.1, a different origin: the call must
// follow the redirect without the Authorization header. A redirect within the same origin keeps it,
// which shows the server would have seen it.
func TestAPIKeyNotForwardedToAnotherHost(t *testing.T) {
	target := newAuthRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/") {
			http.Redirect(w, r, "/moved/same-origin", http.StatusTemporaryRedirect)
			return
		}
		_, _ = io.WriteString(w, completionJSON("moved"))
	})
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	otherHost := "http://localhost:" + port
	tests := []struct {
		name     string
		status   int
		to       string
		wantAuth string
	}{
		{"307 to another host", http.StatusTemporaryRedirect, otherHost, ""},
		{"308 to another host", http.StatusPermanentRedirect, otherHost, ""},
		{"302 to another host", http.StatusFound, otherHost, ""},
		{"307 to another port of the same host", http.StatusTemporaryRedirect, target.URL, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := "/moved/" + strings.ReplaceAll(tc.name, " ", "-")
			origin := httptest.NewServer(http.RedirectHandler(tc.to+path, tc.status))
			defer origin.Close()
			client, _ := newTestClient(t, origin.URL, WithAPIKey(secretKey))
			resp, err := client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("x")}})
			if err != nil || resp.Text() != "moved" {
				t.Fatalf("got %v, %v; want the redirected answer", resp, err)
			}
			if got := target.auth(path); len(got) != 1 || got[0] != tc.wantAuth {
				t.Errorf("redirect target got Authorization %q, want [%q]", got, tc.wantAuth)
			}
		})
	}
	t.Run("307 within the same origin", func(t *testing.T) {
		client, _ := newTestClient(t, target.URL, WithAPIKey(secretKey))
		if _, err := client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage("x")}}); err != nil {
			t.Fatal(err)
		}
		if got := target.auth("/moved/same-origin"); len(got) != 1 || got[0] != "Bearer "+secretKey {
			t.Errorf("same-origin redirect got Authorization %q, want the key", got)
		}
	})
}

// TestPlainHTTPWarning checks the warning about credentials over plain http: once per client, when
// it is created, and only for a host that is not loopback. No request leaves the machine: an
// in-memory transport answers for the remote host.
func TestPlainHTTPWarning(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_ACCESS_TOKEN", "")
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(completionJSON("ok"))), Request: r}, nil
	})
	tests := []struct {
		baseURL string
		opts    []Option
		want    int
	}{
		{"http://gateway.example.com", []Option{WithAPIKey(secretKey)}, 1},
		{"http://gateway.example.com/api/v1", []Option{WithAccessToken(secretJWT)}, 1},
		{"http://203.0.113.7:8080", []Option{WithAPIKey(secretKey)}, 1},
		{"http://gateway.example.com", nil, 0},
		{"https://gateway.example.com", []Option{WithAPIKey(secretKey)}, 0},
		{"http://127.0.0.1:8080", []Option{WithAPIKey(secretKey)}, 0},
		{"http://127.9.9.9", []Option{WithAPIKey(secretKey)}, 0},
		{"http://localhost:8080", []Option{WithAPIKey(secretKey)}, 0},
		{"http://[::1]:8080", []Option{WithAPIKey(secretKey)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.baseURL, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			opts := append([]Option{WithBaseURL(tc.baseURL), WithLogger(logger), WithHTTPClient(&http.Client{Transport: rt})}, tc.opts...)
			client, err := NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.opts != nil {
				for range 3 {
					if err := renameChat(client); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := strings.Count(logs.String(), "credentials will be sent over plain http"); got != tc.want {
				t.Errorf("warned %d times, want %d:\n%s", got, tc.want, logs.String())
			}
			assertNoSecret(t, "warning", logs.String())
		})
	}
}
