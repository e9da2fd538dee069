package infergate_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/infergate/infergate-go"
)

const chatURL = "https://gw.test/api/v1/chat/completions"

const okCompletion = `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`

func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		responder httpmock.Responder
		wantCalls int
		wantErr   error
	}{
		{"429 then success", sequence(status(429, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "0"), status(200, okCompletion)), 2, nil},
		{"408 then success", sequence(status(408, ``), status(200, okCompletion)), 2, nil},
		{"409 then success", sequence(status(409, ``), status(200, okCompletion)), 2, nil},
		{"500 502 then success", sequence(status(500, `{"error":"boom"}`), status(502, `bad gateway`), status(200, okCompletion)), 3, nil},
		{"503 storm exhausts retries", status(503, `{"detail":"overloaded"}`), 3, infergate.ErrServer},
		{"504 storm exhausts retries", status(504, ``), 3, infergate.ErrServer},
		{"connection error then success", sequence(httpmock.NewErrorResponder(errors.New("connection reset by peer")), status(200, okCompletion)), 2, nil},
		{"400 is not retried", status(400, `{"error":{"message":"bad","type":"invalid_request_error"}}`), 1, nil},
		{"401 is not retried", status(401, `{"detail":"Invalid API key"}`), 1, infergate.ErrUnauthorized},
		{"402 is not retried", status(402, `{"error":{"message":"no funds","type":"insufficient_balance","code":"insufficient_balance","available":"0","estimated_cost":"1"}}`), 1, infergate.ErrInsufficientBalance},
		{"404 is not retried", status(404, `{"detail":"Not Found"}`), 1, infergate.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mock := mockClient(t)
			mock.RegisterResponder(http.MethodPost, chatURL, tt.responder)
			_, err := c.Chat.Create(context.Background(), hello())
			if got := mock.GetTotalCallCount(); got != tt.wantCalls {
				t.Errorf("server saw %d calls, want %d", got, tt.wantCalls)
			}
			wantOK := tt.wantCalls > 1 && tt.wantErr == nil
			switch {
			case wantOK && err != nil:
				t.Errorf("err = %v, want success after retries", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			case !wantOK && err == nil:
				t.Error("err = nil, want the last attempt's error")
			}
		})
	}
}

func TestRetryGivesBackLastAttemptsError(t *testing.T) {
	t.Parallel()
	c, mock := mockClient(t)
	mock.RegisterResponder(http.MethodPost, chatURL, sequence(
		status(500, `{"error":"first"}`),
		status(503, `{"error":{"message":"last one","type":"server_error","code":503}}`, "X-Request-Id", "ab12cd34")))
	_, err := c.Chat.Create(context.Background(), hello(), infergate.WithMaxRetries(1))
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if apiErr.StatusCode != 503 || apiErr.Message != "last one" || apiErr.Code != "503" || apiErr.RequestID != "ab12cd34" {
		t.Errorf("got %+v, want the 503 of the last attempt with its code and request id", apiErr)
	}
	if !bytes.Contains(apiErr.Body, []byte("last one")) {
		t.Errorf("raw body lost: %q", apiErr.Body)
	}
	if mock.GetTotalCallCount() != 2 {
		t.Errorf("WithMaxRetries(1) made %d calls, want 2", mock.GetTotalCallCount())
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	t.Run("too long: error at once, wait on the error", func(t *testing.T) {
		c, mock := mockClient(t)
		mock.RegisterResponder(http.MethodPost, chatURL, status(429, `{"error":{"message":"later","code":"rate_limit_exceeded"}}`, "Retry-After", "3600"))
		_, err := c.Chat.Create(context.Background(), hello())
		var apiErr *infergate.APIError
		if !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour || !errors.Is(err, infergate.ErrRateLimited) {
			t.Fatalf("err = %v, want a rate-limit APIError with RetryAfter 1h", err)
		}
		if mock.GetTotalCallCount() != 1 {
			t.Errorf("made %d calls, want 1", mock.GetTotalCallCount())
		}
	})
	t.Run("HTTP date and retry-after-ms are honoured", func(t *testing.T) {
		c, mock := mockClient(t)
		date := time.Now().Add(-time.Second).UTC().Format(http.TimeFormat)
		mock.RegisterResponder(http.MethodPost, chatURL, sequence(
			status(429, ``, "Retry-After", date), status(503, ``, "Retry-After-Ms", "5"), status(200, okCompletion)))
		if _, err := c.Chat.Create(context.Background(), hello()); err != nil {
			t.Fatal(err)
		}
		if mock.GetTotalCallCount() != 3 {
			t.Errorf("made %d calls, want 3", mock.GetTotalCallCount())
		}
	})
	t.Run("no retry that would outlive the deadline", func(t *testing.T) {
		c, mock := mockClient(t)
		mock.RegisterResponder(http.MethodPost, chatURL, status(503, ``, "Retry-After", "30"))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := c.Chat.Create(ctx, hello())
		if !errors.Is(err, infergate.ErrServer) || mock.GetTotalCallCount() != 1 {
			t.Errorf("err = %v after %d calls, want the 503 after 1 call", err, mock.GetTotalCallCount())
		}
	})
}

func TestRetryLogsWithoutSecrets(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mock := mockClient(t, infergate.WithLogger(logger))
	mock.RegisterResponder(http.MethodPost, chatURL, sequence(status(502, ``), status(401, `{"detail":"Invalid API key"}`)))
	_, err := c.Chat.Create(context.Background(), hello())
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("no retry was logged:\n%s", logs.String())
	}
	for _, text := range []string{logs.String(), err.Error(), fmt.Sprintf("%+v %#v", c, c)} {
		if strings.Contains(text, "sk-secret-key") {
			t.Errorf("API key leaked: %s", text)
		}
	}
}

func TestStreamRetriedOnlyBeforeFirstByte(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch hits.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(content("a"))) // then the body ends: a truncated stream
		}
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, infergate.WithMaxRetries(3), infergate.WithRetryBackoff(0, 0))
	stream, err := c.Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, stream)
	if !errors.Is(got.err, infergate.ErrIncompleteStream) || got.text != "a" {
		t.Errorf("got %q, %v; want \"a\" and ErrIncompleteStream", got.text, got.err)
	}
	if hits.Load() != 2 {
		t.Errorf("server saw %d requests, want 2: one retry before the body, none after", hits.Load())
	}
}
