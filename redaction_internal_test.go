package infergate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// formatted renders an error every way a caller or a logger might.
func formatted(err error) string {
	out := fmt.Sprintf("%v | %+v | %#v | %s", err, err, err, err)
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		out += fmt.Sprintf(" | %#v | %s | %#v", *apiErr, apiErr.Body, apiErr.Header)
	}
	var decodeErr *DecodeError
	if errors.As(err, &decodeErr) {
		out += fmt.Sprintf(" | %#v | %s | %#v", *decodeErr, decodeErr.Body, decodeErr.Header)
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		out += " | " + e.Error()
	}
	return out
}

// TestErrorsFromSuccessfulStatusesRedacted covers every way a 2xx answer becomes an error: a session
// route's "success": false, a body that is not the route's JSON (session, chat, transcription), and
// an "error" key. Each echoes the key; none may repeat it, and a body that fails to decode is a
// *DecodeError, not an *APIError with status 200.
func TestErrorsFromSuccessfulStatusesRedacted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		call       func(context.Context, *Client) error
		wantDecode bool
		wantText   string
	}{
		{"session success false", `{"success":false,"message":"key ` + secretKey + ` has no stake"}`, func(ctx context.Context, c *Client) error {
			_, err := c.Sessions.CreateForModel(ctx, "llama", SessionOptions{})
			return err
		}, false, "key [redacted] has no stake"},
		{"session answer not an object", `"` + secretKey + `"`, func(ctx context.Context, c *Client) error {
			_, err := c.Sessions.Close(ctx)
			return err
		}, true, "not the expected JSON"},
		{"transcription broken JSON", `{"text": "` + secretKey, func(ctx context.Context, c *Client) error {
			_, err := c.Audio.Transcribe(ctx, TranscriptionRequest{S3PresignedURL: "https://bucket.test/a.wav"})
			return err
		}, true, "not the expected JSON"},
		{"chat answer of the wrong shape", `{"choices":"` + secretKey + `"}`, func(ctx context.Context, c *Client) error {
			_, err := c.Chat.Create(ctx, ChatRequest{Messages: []Message{UserMessage("x")}})
			return err
		}, true, "not the expected JSON"},
		{"bid with a key as its price", `{"bids":[{"bid_id":"b","price_per_second":"` + secretKey + `"}]}`, func(ctx context.Context, c *Client) error {
			_, err := c.Bids.Rated(ctx, "0x"+strings.Repeat("ab", 32))
			return err
		}, true, "not the expected JSON"},
		{"error key", `{"error":"key ` + secretKey + ` rejected"}`, func(ctx context.Context, c *Client) error {
			_, err := c.Chat.Create(ctx, ChatRequest{Messages: []Message{UserMessage("x")}})
			return err
		}, false, "key [redacted] rejected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("X-Echo", "Bearer "+secretKey)
				_, _ = io.WriteString(w, tc.body)
			})
			client, _ := newTestClient(t, srv.URL, WithAPIKey(secretKey))
			err := tc.call(t.Context(), client)
			if err == nil || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("err = %v, want one saying %q", err, tc.wantText)
			}
			var apiErr *APIError
			var decodeErr *DecodeError
			if tc.wantDecode && (!errors.As(err, &decodeErr) || errors.As(err, &apiErr) || decodeErr.StatusCode != 200) {
				t.Errorf("err = %#v, want a *DecodeError with status 200 and no *APIError", err)
			}
			if !tc.wantDecode && !errors.As(err, &apiErr) {
				t.Errorf("err = %#v, want an *APIError", err)
			}
			assertNoSecret(t, "error", formatted(err))
		})
	}
}

// TestEscapedKeyRedactedFromMessage has the server write the key JSON-escaped: the message decoded
// from it must not show it.
func TestEscapedKeyRedactedFromMessage(t *testing.T) {
	t.Parallel()
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"key \u0073k-live-SECRETKEY0123456789abcdef rejected","param":"\u0073k-live-SECRETKEY0123456789abcdef"}}`)
	})
	client, _ := newTestClient(t, srv.URL, WithAPIKey(secretKey))
	_, err := client.Models.List(t.Context())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "key [redacted] rejected" || apiErr.Param != "[redacted]" {
		t.Fatalf("err = %#v, want the message and param with the key redacted", err)
	}
	assertNoSecret(t, "error", err.Error())
}

// TestAPIErrorHeadersRedacted has a 401 echo the key in WWW-Authenticate and another header, as
// %#v prints them.
func TestAPIErrorHeadersRedacted(t *testing.T) {
	t.Parallel()
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", token="`+secretKey+`"`)
		w.Header().Add("X-Debug", r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusUnauthorized)
	})
	client, _ := newTestClient(t, srv.URL, WithAPIKey(secretKey))
	_, err := client.Models.List(t.Context())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v, want a 401 *APIError", err)
	}
	if got := apiErr.Header.Get("WWW-Authenticate"); !strings.Contains(got, `token="[redacted]"`) {
		t.Errorf("WWW-Authenticate = %q, want the key redacted but the rest kept", got)
	}
	assertNoSecret(t, "error", formatted(err))
}

// TestRedirectURLRedacted sends the call to a redirect whose target carries the key in its query
// and user information and cannot be reached, or loops: neither the error nor any log line may show
// the key.
func TestRedirectURLRedacted(t *testing.T) {
	t.Parallel()
	dead := closedAddr(t)
	var loop *countedServer
	loop = newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loop.URL+"/login?token="+secretKey, http.StatusFound)
	})
	targets := map[string]string{
		"unreachable query": "http://" + dead + "/login?token=" + secretKey,
		"unreachable user":  "http://user:" + secretKey + "@" + dead + "/login",
		"redirect loop":     loop.URL + "/login?token=" + secretKey,
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			origin := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target, http.StatusTemporaryRedirect)
			})
			client, _ := newTestClient(t, origin.URL, WithLogger(logger), WithAPIKey("other-key"))
			_, err := client.Models.List(t.Context())
			if err == nil {
				t.Fatal("want an error")
			}
			assertNoSecret(t, "error", formatted(err))
			assertNoSecret(t, "logs", logs.String())
			if name != "redirect loop" && !strings.Contains(logs.String(), "infergate: retrying") {
				t.Errorf("the failure was not retried, so the log path was not exercised:\n%s", logs.String())
			}
		})
	}
}

// TestBaseURLErrorsHideCredentials gives WithBaseURL URLs carrying the key in their user
// information, some of them unparseable: the ValidationError must say what is wrong without it.
func TestBaseURLErrorsHideCredentials(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"https://user:" + secretKey + "@[::1", "ftp://user:" + secretKey + "@host", "https://user:" + secretKey + "@host",
		"https://" + secretKey + "@host:port", "gopher://host/?key=" + secretKey, "https://host:" + secretKey,
		"https://user:" + secretKey + "@host/\x7f",
	} {
		_, err := NewClient(WithBaseURL(raw), WithAPIKey(secretKey))
		var invalid *ValidationError
		if !errors.As(err, &invalid) || invalid.Field != "BaseURL" {
			t.Errorf("WithBaseURL(%q): err = %v, want a BaseURL *ValidationError", raw, err)
		}
		assertNoSecret(t, "error", formatted(err))
	}
}

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
	t.Parallel()
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
	t.Parallel()
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

// An *APIError keeps the body the server sent, so its escaped echo of the key is blanked out there
// too, not only in the decoded message.
func TestAPIErrorBodyRedactsEscapedKey(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"&#115;", "&#00000115;", "&#x0000073"} { // zero-padded, as browsers read them too
		srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `<html><body><p>Key `+s+`k-live-SECRETKEY0123456789abcdef was refused</p></body></html>`)
		})
		client, _ := newTestClient(t, srv.URL, WithAPIKey(secretKey))
		_, err := client.Models.List(t.Context())
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("%s: err = %v, want an *APIError", s, err)
		}
		if want := `<html><body><p>Key [redacted] was refused</p></body></html>`; string(apiErr.Body) != want {
			t.Errorf("%s: Body = %s, want %s", s, apiErr.Body, want)
		}
		if apiErr.Message != "Key [redacted] was refused" {
			t.Errorf("%s: Message = %q", s, apiErr.Message)
		}
		assertNoSecret(t, "error", formatted(err))
	}
}
