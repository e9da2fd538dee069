package infergate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// post is the request a session route gets: a POST with the API key, and a JSON body when one is sent.
func post(route, body string) catalogCall {
	c := catalogCall{Method: http.MethodPost, URL: catalogAPIRoot + route, Authorization: "Bearer " + catalogAPIKey, Body: body}
	if body != "" {
		c.ContentType = "application/json"
	}
	return c
}

const openedSession = `{"success":true,"message":"Session created","session_id":"0x5e55","api_key_prefix":"sk-abc","model":"llama-3.3-70b"}`

func TestSessionsCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		call     func(context.Context, *SessionsService) (*Session, error)
		route    string
		wantBody string
	}{
		{
			name: "from bid, defaults",
			call: func(ctx context.Context, s *SessionsService) (*Session, error) {
				return s.CreateFromBid(ctx, bidHex, SessionOptions{})
			},
			route:    "/session/bidsession?bid_id=" + bidHex,
			wantBody: `{"directPayment":false,"failover":false}`,
		},
		{
			name: "from bid, every option",
			call: func(ctx context.Context, s *SessionsService) (*Session, error) {
				return s.CreateFromBid(ctx, bidHex, SessionOptions{Duration: time.Hour + 500*time.Millisecond, DirectPayment: true, Failover: true})
			},
			route:    "/session/bidsession?bid_id=" + bidHex,
			wantBody: `{"sessionDuration":3600,"directPayment":true,"failover":true}`,
		},
		{
			name: "for a model by name",
			call: func(ctx context.Context, s *SessionsService) (*Session, error) {
				return s.CreateForModel(ctx, "llama-3.3-70b", SessionOptions{Duration: 10 * time.Minute})
			},
			route:    "/session/modelsession?model_id=llama-3.3-70b",
			wantBody: `{"sessionDuration":600,"directPayment":false,"failover":false}`,
		},
		{
			name: "for a model by hex id",
			call: func(ctx context.Context, s *SessionsService) (*Session, error) {
				return s.CreateForModel(ctx, llamaHex, SessionOptions{Failover: true})
			},
			route:    "/session/modelsession?model_id=" + llamaHex,
			wantBody: `{"directPayment":false,"failover":true}`,
		},
	}
	want := &Session{ID: "0x5e55", Model: "llama-3.3-70b", APIKeyPrefix: "sk-abc", Message: "Session created"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(http.MethodPost, tt.route, 200, openedSession)
			got, err := tt.call(t.Context(), m.client(WithAccessToken(catalogJWT)).Sessions)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("session (-want +got):\n%s", diff)
			}
			m.expect(post(tt.route, tt.wantBody))
		})
	}
}

func TestSessionsClose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       *Session
	}{
		{"closed one", `{"success":true,"message":"Session closed","session_id":"0x5e55"}`, &Session{ID: "0x5e55", Message: "Session closed"}},
		{"there was none", `{"success":true,"message":"No session","session_id":null}`, &Session{Message: "No session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(http.MethodPost, "/session/closesession", 200, tt.body)
			got, err := m.client().Sessions.Close(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("session (-want +got):\n%s", diff)
			}
			m.expect(post("/session/closesession", ""))
		})
	}
}

func TestSessionsPing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body      string
		want      SessionStatus
		wantAlive bool
	}{
		{`{"status":"alive","message":"ok","session_id":"0x5e55","success":true}`,
			SessionStatus{State: SessionStateAlive, Message: "ok", SessionID: "0x5e55", Success: true}, true},
		{`{"status":"expired","message":"Session expired","session_id":"0x5e55","success":false}`,
			SessionStatus{State: SessionStateExpired, Message: "Session expired", SessionID: "0x5e55"}, false},
		{`{"status":"no_session","message":"none","success":false}`,
			SessionStatus{State: SessionStateNoSession, Message: "none"}, false},
		{`{"status":"error","message":"lookup failed","success":false}`,
			SessionStatus{State: SessionStateError, Message: "lookup failed"}, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.want.State), func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(http.MethodPost, "/session/pingsession", 200, tt.body)
			got, err := m.client().Sessions.Ping(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if got.Alive() != tt.wantAlive {
				t.Errorf("Alive() = %v, want %v", got.Alive(), tt.wantAlive)
			}
			m.expect(post("/session/pingsession", ""))
		})
	}
}

// sessionCalls runs each session method once.
var sessionCalls = map[string]func(context.Context, *Client) error{
	"CreateFromBid": func(ctx context.Context, c *Client) error {
		_, err := c.Sessions.CreateFromBid(ctx, bidHex, SessionOptions{})
		return err
	},
	"CreateForModel": func(ctx context.Context, c *Client) error {
		_, err := c.Sessions.CreateForModel(ctx, "llama", SessionOptions{})
		return err
	},
	"Close": func(ctx context.Context, c *Client) error { _, err := c.Sessions.Close(ctx); return err },
	"Ping":  func(ctx context.Context, c *Client) error { _, err := c.Sessions.Ping(ctx); return err },
}

func TestSessionsErrorEnvelopes(t *testing.T) {
	t.Parallel()
	checkEnvelopes(t, sessionCalls)
}

func TestSessionsUnsupported(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body      string
		wantUnsupported bool
	}{
		{"route missing", `{"detail":"Not Found"}`, true},
		{"empty body", ``, true},
		{"proxy page", `<html><title>404 Not Found</title></html>`, true},
		{"Go's mux", "404 page not found\n", true},
		{"a named thing is missing", `{"detail":"Bid not found"}`, false},
	}
	for name, call := range sessionCalls {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				m := newCatalogMock(t)
				m.on(http.MethodPost, "/session/bidsession?bid_id="+bidHex, 404, tt.body)
				m.on(http.MethodPost, "/session/modelsession?model_id=llama", 404, tt.body)
				m.on(http.MethodPost, "/session/closesession", 404, tt.body)
				m.on(http.MethodPost, "/session/pingsession", 404, tt.body)
				err := call(t.Context(), m.client())
				if got := errors.Is(err, ErrSessionsUnsupported); got != tt.wantUnsupported {
					t.Errorf("errors.Is(%v, ErrSessionsUnsupported) = %v, want %v", err, got, tt.wantUnsupported)
				}
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || !errors.Is(err, ErrNotFound) {
					t.Errorf("err = %v, want a 404 *APIError matching ErrNotFound", err)
				}
			})
		}
	}
}

func TestSessionsSuccessFalse(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"CreateFromBid", "CreateForModel", "Close"} {
		t.Run(name, func(t *testing.T) {
			m := newCatalogMock(t)
			body := `{"success":false,"message":"Provider rejected the bid","session_id":null}`
			m.on(http.MethodPost, "/session/bidsession?bid_id="+bidHex, 200, body)
			m.on(http.MethodPost, "/session/modelsession?model_id=llama", 200, body)
			m.on(http.MethodPost, "/session/closesession", 200, body)
			err := sessionCalls[name](t.Context(), m.client())
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want an *APIError", err)
			}
			if apiErr.StatusCode != 200 || apiErr.Message != "Provider rejected the bid" || string(apiErr.Body) != body {
				t.Errorf("APIError = %+v", apiErr)
			}
		})
	}
}

func TestSessionsValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, field string
		call        func(context.Context, *SessionsService) error
	}{
		{"empty bid", "BidID", func(ctx context.Context, s *SessionsService) error {
			_, err := s.CreateFromBid(ctx, " ", SessionOptions{})
			return err
		}},
		{"empty model", "Model", func(ctx context.Context, s *SessionsService) error {
			_, err := s.CreateForModel(ctx, "", SessionOptions{})
			return err
		}},
		{"sub-second duration", "Duration", func(ctx context.Context, s *SessionsService) error {
			_, err := s.CreateFromBid(ctx, bidHex, SessionOptions{Duration: time.Millisecond})
			return err
		}},
		{"negative duration", "Duration", func(ctx context.Context, s *SessionsService) error {
			_, err := s.CreateForModel(ctx, "llama", SessionOptions{Duration: -time.Hour})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			err := tt.call(t.Context(), m.client().Sessions)
			var verr *ValidationError
			if !errors.As(err, &verr) || verr.Field != tt.field {
				t.Fatalf("err = %v, want a ValidationError on %s", err, tt.field)
			}
			if n := m.mock.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests were sent", n)
			}
		})
	}
}

func TestHealthCheck(t *testing.T) {
	t.Parallel()
	body := `{"status":"ok","timestamp":"2025-10-15T12:34:56.789012","version":"1.4.2","database":"healthy",
		"redis_cache":{"status":"healthy"},"model_service":{"status":"healthy","model_count":42,"cache_info":{},
		"default_fallback_model":"llama-3.3-70b","default_fallback_tts_model":"kokoro","default_fallback_stt_model":"whisper",
		"default_fallback_embeddings_model":"bge-m3"},"uptime":{"seconds":5400,"human_readable":"1h 30m"}}`
	mock, _ := recordAll(t, 200, body, "application/json")
	h, err := mockClient(t, mock, WithAPIKey("")).Health.Check(t.Context())
	if err != nil {
		t.Fatalf("health needs no credential: %v", err)
	}
	if h.Status != "ok" || h.Version != "1.4.2" || h.Database != "healthy" || !h.Timestamp.Equal(time.Date(2025, 10, 15, 12, 34, 56, 789012000, time.UTC)) ||
		h.ModelService != (ModelServiceHealth{Status: "healthy", ModelCount: 42, DefaultFallbackModel: "llama-3.3-70b",
			DefaultFallbackTTSModel: "kokoro", DefaultFallbackSTTModel: "whisper", DefaultFallbackEmbeddingsModel: "bge-m3"}) ||
		h.Uptime != 90*time.Minute || string(h.Raw) != body || !h.Healthy() {
		t.Errorf("health = %+v", h)
	}
}

func TestHealthHealthy(t *testing.T) {
	t.Parallel()
	ok := Health{Status: "ok", Database: "healthy", ModelService: ModelServiceHealth{Status: "healthy", ModelCount: 1}}
	for name, h := range map[string]Health{
		"database down": {Status: "ok", Database: "unhealthy: timeout", ModelService: ok.ModelService},
		"no models":     {Status: "ok", Database: "healthy", ModelService: ModelServiceHealth{Status: "warning: no models available"}},
		"odd database":  {Status: "ok", ModelService: ok.ModelService},
	} {
		if h.Healthy() {
			t.Errorf("%s: Healthy() = true", name)
		}
	}
	if !ok.Healthy() {
		t.Error("a healthy report is not Healthy")
	}
	var h Health
	if err := h.UnmarshalJSON([]byte(`{"status":"ok","database":{"state":"up"},"uptime":"a while"}`)); err != nil || h.Database != `{"state":"up"}` || h.Uptime != 0 {
		t.Errorf("odd shapes: %+v, %v", h, err)
	}
}

const newKeySecret = "sk-Zq8v3kT1secretsecretsecret"

func TestKeysCreateShowsTheKeyOnlyWhereAsked(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, `{"key":"`+newKeySecret+`","key_prefix":"sk-Zq8v3k","name":"ci"}`, "")
	k, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.Create(t.Context(), "ci")
	if err != nil {
		t.Fatal(err)
	}
	if k.Key != newKeySecret || k.KeyPrefix != "sk-Zq8v3k" || k.Name != "ci" {
		t.Fatalf("key = %#v", *k)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("created", "key", *k)
	for _, shown := range []string{fmt.Sprint(*k), fmt.Sprintf("%+v", *k), fmt.Sprintf("%#v", k), fmt.Sprintf("%s", *k), logged.String()} {
		if strings.Contains(shown, "secretsecret") || !strings.Contains(shown, "sk-Zq8v3k") {
			t.Errorf("printed as %q", shown)
		}
	}
}

func TestKeysCreateUnreadableAnswerKeepsTheKeyOutOfTheError(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, `{"key":"`+newKeySecret+`","key_prefix":7}`, "")
	_, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.Create(t.Context(), "")
	var decodeErr *DecodeError
	if !errors.As(err, &decodeErr) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(fmt.Sprintf("%v %+v %s", err, decodeErr, decodeErr.Body), "secretsecret") {
		t.Errorf("the new key leaked into the error: %+v", decodeErr)
	}
}

func TestKeysListAndDefault(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, `[{"id":1,"key_prefix":"sk-aaaaaa","name":null,"created_at":"2025-09-22T11:09:00.123456","is_active":false,"is_default":false,"encryption_version":1},
		{"id":2,"key_prefix":"sk-bbbbbb","name":"prod","created_at":"2025-09-23T08:55:00Z","is_active":true,"is_default":true}]`, "")
	keys, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []APIKey{
		{ID: 1, KeyPrefix: "sk-aaaaaa", CreatedAt: time.Date(2025, 9, 22, 11, 9, 0, 123456000, time.UTC)},
		{ID: 2, KeyPrefix: "sk-bbbbbb", Name: "prod", CreatedAt: time.Date(2025, 9, 23, 8, 55, 0, 0, time.UTC), IsActive: true, IsDefault: true},
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	mock, _ = recordAll(t, 200, `null`, "")
	if k, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.Default(t.Context()); k != nil || !errors.Is(err, ErrNotFound) {
		t.Errorf("no default key: got %v, %v; want nil and an error matching ErrNotFound", k, err)
	}
}

func TestKeysRefuseTheAPIKeyAlone(t *testing.T) {
	t.Parallel()
	mock, calls := recordAll(t, 200, `[]`, "")
	_, err := mockClient(t, mock).Keys.List(t.Context())
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.Field != "AccessToken" || len(calls()) != 0 {
		t.Errorf("err = %v after %d requests; want a ValidationError on AccessToken and none sent", err, len(calls()))
	}
}
