package infergate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestOptionsValidated refuses, in NewClient, option values that used to panic or fail on every
// attempt, without repeating a credential.
func TestOptionsValidated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		field string
		opt   Option
	}{
		{"RetryBackoff", WithRetryBackoff(-time.Second, -time.Second)},
		{"RetryBackoff", WithRetryBackoff(time.Second, -time.Second)},
		{"RetryBackoff", WithRetryBackoff(time.Second, time.Millisecond)},
		{"MaxRetryAfter", WithMaxRetryAfter(-time.Second)},
		{"Timeout", WithTimeout(0)},
		{"Timeout", WithTimeout(-time.Second)},
		{"StreamTimeouts", WithStreamTimeouts(-time.Second, 0)},
		{"MaxLineSize", WithMaxLineSize(-1)},
		{"MaxRetries", WithMaxRetries(-1)},
		{"CatalogTTL", WithCatalogTTL(-time.Second)},
		{"WithHeader", WithHeader("X-Tenant", "a\r\nX-Injected: 1")},
		{"WithHeader", WithHeader("X-Tenant", "a\nb")},
		{"WithHeader", WithHeader("Bad Name", "v")},
		{"APIKey", WithAPIKey(secretKey + "\n")},
		{"AccessToken", WithAccessToken(secretJWT + "\r\n")},
	}
	for _, tc := range tests {
		_, err := NewClient(WithBaseURL("http://127.0.0.1:1"), WithAPIKey(secretKey), tc.opt)
		var invalid *ValidationError
		if !errors.As(err, &invalid) || invalid.Field != tc.field {
			t.Errorf("%s: err = %v, want a *ValidationError for %s", tc.field, err, tc.field)
		}
		assertNoSecret(t, "error", formatted(err))
	}
}

// TestBadCallHeaderNeverSent refuses a per-call header with CR or LF before any request, where it
// used to be retried three times.
func TestBadCallHeaderNeverSent(t *testing.T) {
	t.Parallel()
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `[]`) })
	client, _ := newTestClient(t, srv.URL)
	for _, opt := range []Option{WithHeader("X-Trace", "a\r\nb"), WithHeader("X-Trace", "a\x00"), WithTimeout(-time.Second), WithMaxRetries(-1)} {
		_, err := client.Models.List(t.Context(), opt)
		var invalid *ValidationError
		if !errors.As(err, &invalid) {
			t.Errorf("err = %v, want a *ValidationError", err)
		}
		_, err = client.Chat.Stream(t.Context(), ChatRequest{Messages: []Message{UserMessage("x")}}, opt)
		if !errors.As(err, &invalid) {
			t.Errorf("stream: err = %v, want a *ValidationError", err)
		}
	}
	if got := srv.hits.Load(); got != 0 {
		t.Errorf("server saw %d requests, want none", got)
	}
}

// TestRedirectKeepsCredentialsToOrigin follows redirects in memory (no network): https to http on
// the same host and port is a downgrade and loses Authorization, a same-origin one keeps it. The
// policy also applies to a caller's own *http.Client, whose CheckRedirect still runs and which is
// not modified.
func TestRedirectKeepsCredentialsToOrigin(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestAPIKeyNotForwardedToAnotherHost redirects calls from 127.0.0.1 to a server reached as
// localhost, a different host, and to another port of 127.0.0.1, a different origin: the call must
// follow the redirect without the Authorization header. A redirect within the same origin keeps it,
// which shows the server would have seen it.
func TestAPIKeyNotForwardedToAnotherHost(t *testing.T) {
	t.Parallel()
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

// TestDeriveKeepsOnlyWhatIsTheSame derives call configurations from clients with random options,
// and holds what a derived one keeps of its client (the redactor, the quota keys, the URL) to what
// the same configuration makes when nothing is kept.
func TestDeriveKeepsOnlyWhatIsTheSame(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_ACCESS_TOKEN", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	clientOptions := [][]Option{nil, {WithAPIKey(secretKey)}, {WithAccessToken(secretJWT), WithModelCooldown(time.Minute)},
		{WithAPIKey(secretKey), WithBaseURL("http://127.0.0.1:9/api/v1"), WithLimiter(NewLimiter(Quotas{}))}}
	callOptions := []Option{WithAPIKey("sk-call-0123456789"), WithAPIKey(secretKey), WithAPIKey(""), WithAccessToken("jwt.call.x"),
		WithBaseURL("https://gateway.example.com"), WithBaseURL(""), WithBaseURL("http://127.0.0.1:9/api/v1"), WithBaseURL("ftp://x"),
		WithModelCooldown(time.Second), WithModelCooldown(0), WithHeader("X-Call", "1"), WithMaxRetries(1), WithTimeout(-1)}
	r := rand.New(rand.NewPCG(*objectSeed, 31))
	for _, base := range clientOptions {
		client, err := NewClient(base...)
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			opts := make([]Option, r.IntN(4))
			for i := range opts {
				opts[i] = callOptions[r.IntN(len(callOptions))]
			}
			derived, err := client.cfg.derive(opts)
			fresh := *client.cfg
			for _, opt := range opts {
				opt(&fresh)
			}
			freshErr := fresh.finish(nil)
			if fmt.Sprint(err) != fmt.Sprint(freshErr) {
				t.Fatalf("derive: %v, made afresh: %v", err, freshErr)
			}
			if err != nil {
				continue
			}
			if !reflect.DeepEqual(derived.redactor, fresh.redactor) || derived.limitKeys != fresh.limitKeys ||
				*derived.baseURL != *fresh.baseURL {
				t.Fatalf("derived %v %v %v, made afresh %v %v %v", derived.redactor, derived.limitKeys, derived.baseURL,
					fresh.redactor, fresh.limitKeys, fresh.baseURL)
			}
		}
	}
}
