package infergate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
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
	checkGoroutines(t)
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
	checkGoroutines(t)
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

// TestRedirectKeepsCredentialsToOrigin follows redirects in memory (no network): https to http on
// the same host and port is a downgrade and loses Authorization, a same-origin one keeps it. The
// policy also applies to a caller's own *http.Client, whose CheckRedirect still runs and which is
// not modified.
func TestRedirectKeepsCredentialsToOrigin(t *testing.T) {
	var seen []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, r.URL.String()+" "+r.Header.Get("Authorization"))
		header := http.Header{}
		switch r.URL.Path {
		case "/api/v1/chat/models":
			header.Set("Location", "http://gateway.test:8443/plain")
		case "/plain":
			header.Set("Location", "https://gateway.test:8443/home")
		default:
			return &http.Response{StatusCode: 200, Header: header, Body: io.NopCloser(strings.NewReader(`[]`)), Request: r}, nil
		}
		return &http.Response{StatusCode: http.StatusTemporaryRedirect, Header: header, Body: http.NoBody, Request: r}, nil
	})
	callerPolicyRan := 0
	callers := map[string]*http.Client{
		"default": {Transport: rt},
		"caller's CheckRedirect": {Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error {
			callerPolicyRan++
			return nil
		}},
	}
	for name, hc := range callers {
		t.Run(name, func(t *testing.T) {
			seen = nil
			original := *hc
			client, err := NewClient(WithAPIKey(secretKey), WithBaseURL("https://gateway.test:8443"), WithHTTPClient(hc))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := client.Models.List(t.Context()); err != nil {
				t.Fatal(err)
			}
			want := []string{
				"https://gateway.test:8443/api/v1/chat/models Bearer " + secretKey,
				"http://gateway.test:8443/plain ",
				"https://gateway.test:8443/home Bearer " + secretKey,
			}
			if strings.Join(seen, "\n") != strings.Join(want, "\n") {
				t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
			}
			if fmt.Sprintf("%p %p", hc.CheckRedirect, hc.Transport) != fmt.Sprintf("%p %p", original.CheckRedirect, original.Transport) {
				t.Error("NewClient modified the caller's *http.Client")
			}
		})
	}
	if callerPolicyRan != 2 {
		t.Errorf("the caller's CheckRedirect ran %d times, want 2", callerPolicyRan)
	}
}

// TestCallerRedirectPolicyStillRefuses checks that a caller's CheckRedirect error still ends the
// call, without a retry, and that http.ErrUseLastResponse still hands back the redirect itself.
func TestCallerRedirectPolicyStillRefuses(t *testing.T) {
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	refuse := errors.New("no redirects here")
	for _, policyErr := range []error{refuse, http.ErrUseLastResponse} {
		srv.hits.Store(0)
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return policyErr }}
		client, _ := newTestClient(t, srv.URL, WithHTTPClient(hc))
		_, err := client.Models.List(t.Context())
		var apiErr *APIError
		switch {
		case policyErr == refuse && !errors.Is(err, refuse):
			t.Errorf("err = %v, want the caller's refusal", err)
		case policyErr == http.ErrUseLastResponse && (!errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusFound):
			t.Errorf("err = %v, want the 302 itself as an *APIError", err)
		}
		if got := srv.hits.Load(); got != 1 {
			t.Errorf("%v: server saw %d requests, want 1", policyErr, got)
		}
	}
}
