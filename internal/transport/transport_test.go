package transport

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, header, value string
		want                time.Duration
		ok                  bool
	}{
		{"seconds", "Retry-After", "2", 2 * time.Second, true},
		{"fraction", "Retry-After", "0.5", 500 * time.Millisecond, true},
		{"milliseconds", "Retry-After-Ms", "250", 250 * time.Millisecond, true},
		{"too large for a float64", "Retry-After", "1" + strings.Repeat("0", 400), math.MaxInt64, true},
		{"exponent too large", "Retry-After-Ms", "1e400", math.MaxInt64, true},
		{"too large for a Duration", "Retry-After", "1e300", math.MaxInt64, true},
		{"negative", "Retry-After", "-1", 0, false},
		{"NaN", "Retry-After", "NaN", 0, false},
		{"words", "Retry-After", "soon", 0, false},
		{"absent", "X-Other", "1", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := RetryAfter(http.Header{http.CanonicalHeaderKey(tt.header): {tt.value}})
			if got != tt.want || ok != tt.ok {
				t.Errorf("RetryAfter(%s: %.20s) = %v, %v; want %v, %v", tt.header, tt.value, got, ok, tt.want, tt.ok)
			}
		})
	}
	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	if got, ok := RetryAfter(http.Header{"Retry-After": {date}}); !ok || got < 59*time.Minute || got > time.Hour {
		t.Errorf("RetryAfter(an HTTP date an hour ahead) = %v, %v", got, ok)
	}
}

func TestBackoffStaysWithinItsBounds(t *testing.T) {
	t.Parallel()
	p := Policy{BaseWait: 100 * time.Millisecond, MaxWait: time.Second}
	for attempt := 1; attempt < 80; attempt++ {
		w, fromServer := p.backoff(attempt, nil)
		limit := min(p.BaseWait<<(attempt-1), p.MaxWait)
		if attempt > 20 {
			limit = p.MaxWait // the shift overflows long before
		}
		if fromServer || w < limit/2 || w > limit {
			t.Fatalf("attempt %d: wait %v, want within [%v, %v]", attempt, w, limit/2, limit)
		}
	}
}

func TestRetryableStatuses(t *testing.T) {
	t.Parallel()
	for status := 100; status < 600; status++ {
		want := status == 408 || status == 409 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504
		if got := retryable(&http.Response{StatusCode: status}, nil); got != want {
			t.Errorf("status %d: retryable = %v, want %v", status, got, want)
		}
	}
	if retryable(nil, Permanent(errors.New("file read failed"))) {
		t.Error("a Permanent error was retryable")
	}
	if !retryable(nil, errors.New("connection reset by peer")) {
		t.Error("a connection error was not retryable")
	}
}

// Do counts its attempts, and stops at MaxRetries.
func TestDoCountsAttempts(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	req, err := retryablehttp.NewRequest(http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{MaxRetries: 2, MaxRetryAfter: time.Minute, BaseWait: time.Millisecond, MaxWait: time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)}
	resp, attempts, err := NewRetrier(srv.Client()).Do(p, req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if attempts != 3 || hits.Load() != 3 || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("attempts = %d, server hits = %d, status %d; want 3, 3, the last 503", attempts, hits.Load(), resp.StatusCode)
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://user:key@host/p":      "https://redacted@host/p",
		"https://host/login?token=sk1": "https://host/login?token=redacted",
		"https://host/p#frag":          "https://host/p",
		"not a url":                    "not a url",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
