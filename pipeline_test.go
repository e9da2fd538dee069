package infergate_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
)

// A POST is sent with one Idempotency-Key that every attempt repeats; two calls get two keys; a key
// the caller set is kept.
func TestIdempotencyKeyStableAcrossAttempts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		n := len(keys)
		mu.Unlock()
		if n == 1 || n == 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, infergate.WithMaxRetries(2))
	for range 2 {
		if _, err := c.Chat.Create(context.Background(), hello()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Chat.Create(context.Background(), hello(), infergate.WithHeader("Idempotency-Key", "mine")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 5 || keys[0] == "" || keys[0] != keys[1] || keys[2] != keys[3] || keys[1] == keys[2] || keys[4] != "mine" {
		t.Errorf("Idempotency-Key per attempt = %q; want one key per call, repeated by its retry, and the caller's own", keys)
	}
}

// A server that reads the whole request and then drops the connection may have run it. By default
// the call is retried with its idempotency key; WithAtMostOnce(true) sends it once and says why.
func TestDeliveredPOSTNotResentWithAtMostOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		opts       []infergate.Option
		deliveries int64
	}{
		{"default retries with the key", nil, 3},
		{"at most once", []infergate.Option{infergate.WithAtMostOnce(true)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var delivered atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				delivered.Add(1)
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
			}))
			defer srv.Close()
			c := testClient(t, srv.URL, append([]infergate.Option{infergate.WithMaxRetries(2)}, tc.opts...)...)
			_, err := c.Chat.Create(context.Background(), hello())
			if err == nil {
				t.Fatal("a dropped connection gave no error")
			}
			if got := delivered.Load(); got != tc.deliveries {
				t.Errorf("the server received the request %d times, want %d (err: %v)", got, tc.deliveries, err)
			}
			if tc.deliveries == 1 && !strings.Contains(err.Error(), "not sent again") {
				t.Errorf("err = %v; want it to say the request was not sent again", err)
			}
		})
	}
}

// A 429 or 503 answer says the request was not run, so WithAtMostOnce still retries it.
func TestAtMostOnceRetriesRefusals(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, infergate.WithMaxRetries(2), infergate.WithAtMostOnce(true))
	if _, err := c.Chat.Create(context.Background(), hello()); err != nil || hits.Load() != 2 {
		t.Errorf("err = %v after %d requests; want success on the retry of a 429", err, hits.Load())
	}
}

// A Retry-After too large for a float64 is a very long wait: the call ends at once with the wait
// on its error, instead of taking the header as absent and retrying at once.
func TestHugeRetryAfterIsALongWait(t *testing.T) {
	t.Parallel()
	for _, h := range [][2]string{{"Retry-After", "1" + strings.Repeat("0", 400)}, {"Retry-After-Ms", "1e400"}} {
		t.Run(h[0], func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set(h[0], h[1])
				w.WriteHeader(http.StatusTooManyRequests)
			}))
			defer srv.Close()
			c := testClient(t, srv.URL, infergate.WithMaxRetries(3))
			_, err := c.Chat.Create(context.Background(), hello())
			var apiErr *infergate.APIError
			if !errors.As(err, &apiErr) || hits.Load() != 1 || apiErr.RetryAfter < 24*time.Hour {
				t.Errorf("err = %v after %d requests; want one request and a very long RetryAfter", err, hits.Load())
			}
		})
	}
}

// No formatting of a client, or of a value holding one, shows a credential: the secrets are their
// own type, which fmt cannot walk into.
func TestSecretsUnprintable(t *testing.T) {
	t.Parallel()
	const key, token = "sk-live-UNPRINTABLE-0123", "jwt-UNPRINTABLE-token"
	c := testClient(t, "http://127.0.0.1:1", infergate.WithAPIKey(key), infergate.WithAccessToken(token))
	type holder struct {
		Client infergate.Client
		Ptr    *infergate.Client
	}
	values := []any{c, *c, holder{*c, c}, &holder{*c, c}, []infergate.Client{*c}, map[string]any{"c": *c}}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%p"} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, key) || strings.Contains(out, token) ||
				strings.Contains(out, fmt.Sprintf("%x", key)) || strings.Contains(out, fmt.Sprintf("%x", token)) {
				t.Fatalf("%s of %T shows a credential: %s", verb, v, out)
			}
		}
	}
}

// The catalogue cached for one credential never answers for another: a tenant cannot resolve
// another tenant's private model, and a key the gateway refuses fails even while another key's
// catalogue is fresh.
func TestCatalogueCachedPerCredential(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "Bearer sk-tenant-a":
			io.WriteString(w, `{"object":"list","data":[{"id":"private-a","blockchainID":"0x01","tags":["x"]}]}`)
		case "Bearer sk-tenant-b":
			io.WriteString(w, `{"object":"list","data":[{"id":"public","blockchainID":"0x02"}]}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"detail":"invalid key"}`)
		}
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, infergate.WithAPIKey("sk-tenant-a"))
	ctx := context.Background()
	if _, err := c.Models.Get(ctx, "private-a"); err != nil {
		t.Fatalf("tenant a: %v", err)
	}
	if _, err := c.Models.Get(ctx, "private-a", infergate.WithAPIKey("sk-tenant-b")); !errors.Is(err, infergate.ErrNotFound) {
		t.Errorf("tenant b resolved tenant a's private model: err = %v", err)
	}
	if _, err := c.Models.Get(ctx, "private-a", infergate.WithAPIKey("sk-revoked")); !errors.Is(err, infergate.ErrUnauthorized) {
		t.Errorf("a refused key was answered from the cache: err = %v", err)
	}
}

// Models.Get hands out a copy: editing the model's tags changes nothing in later lookups.
func TestModelsGetSharesNoMemoryWithTheCache(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"m","blockchainID":"0x01","tags":["fast","cheap"]}]}`)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL)
	m, err := c.Models.Get(context.Background(), "m")
	if err != nil {
		t.Fatal(err)
	}
	m.Tags[0] = "changed"
	_ = append(m.Tags[:1], "appended")
	again, err := c.Models.Get(context.Background(), "m")
	if err != nil || strings.Join(again.Tags, ",") != "fast,cheap" {
		t.Errorf("second lookup = %v, %v; want the tags as served", again.Tags, err)
	}
}

// A call's options reach every request the call makes: Bids.Rated with another base URL looks the
// model up in that gateway's catalogue too, not in the client's.
func TestCallOptionsReachEveryRequestOfTheCall(t *testing.T) {
	t.Parallel()
	var paths []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/ratedbids") {
			io.WriteString(w, `[]`)
			return
		}
		io.WriteString(w, `{"object":"list","data":[{"id":"m","blockchainID":"0x0a"}]}`)
	}))
	defer other.Close()
	c := testClient(t, "http://127.0.0.1:1")
	if _, err := c.Bids.Rated(context.Background(), "m", infergate.WithBaseURL(other.URL)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 2 || !strings.HasSuffix(paths[1], "/models/ratedbids") {
		t.Errorf("requests to the call's gateway: %v; want the catalogue, then the bids", paths)
	}
}

// blockingTransport never answers: each request waits for its context, as a gateway that accepts
// the connection and never sends headers.
type blockingTransport struct{}

func (blockingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// Speech is bounded like a stream: a gateway that never sends headers ends the call with
// ErrStreamTimeout after the first-byte limit; SpeechTo and SpeechToFile also obey WithTimeout. Each
// is a *TimeoutError naming its bound and matching context.DeadlineExceeded, so one check catches
// every timeout.
func TestSpeechBounded(t *testing.T) {
	t.Parallel()
	req := infergate.SpeechRequest{Input: "hello", Model: "tts-1"}
	for _, tc := range []struct {
		name  string
		call  func(ctx context.Context, c *infergate.Client) error
		opt   infergate.Option
		want  error
		bound string
	}{
		{"Speech, first byte", func(ctx context.Context, c *infergate.Client) error {
			_, err := c.Audio.Speech(ctx, req)
			return err
		}, infergate.WithStreamTimeouts(time.Second, time.Second), infergate.ErrStreamTimeout, infergate.TimeoutBoundFirstByte},
		{"SpeechTo, first byte", func(ctx context.Context, c *infergate.Client) error {
			_, err := c.Audio.SpeechTo(ctx, io.Discard, req)
			return err
		}, infergate.WithStreamTimeouts(time.Second, time.Second), infergate.ErrStreamTimeout, infergate.TimeoutBoundFirstByte},
		{"SpeechTo, WithTimeout", func(ctx context.Context, c *infergate.Client) error {
			_, err := c.Audio.SpeechTo(ctx, io.Discard, req)
			return err
		}, infergate.WithTimeout(time.Second), context.DeadlineExceeded, infergate.TimeoutBoundCall},
		{"SpeechToFile, WithTimeout", func(ctx context.Context, c *infergate.Client) error {
			return c.Audio.SpeechToFile(ctx, t.TempDir()+"/out.mp3", req)
		}, infergate.WithTimeout(time.Second), context.DeadlineExceeded, infergate.TimeoutBoundCall},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				c := testClient(t, "https://gw.test", infergate.WithHTTPClient(&http.Client{Transport: blockingTransport{}}), tc.opt)
				start := time.Now()
				err := tc.call(context.Background(), c)
				if !errors.Is(err, tc.want) || time.Since(start) != time.Second {
					t.Errorf("err = %v after %v; want %v after 1s", err, time.Since(start), tc.want)
				}
				var timeout *infergate.TimeoutError
				if !errors.As(err, &timeout) || timeout.Bound != tc.bound || timeout.Timeout != time.Second ||
					!errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v; want a *TimeoutError of bound %q, 1s, matching context.DeadlineExceeded", err, tc.bound)
				}
				if streamed := errors.Is(err, infergate.ErrStreamTimeout); streamed != (tc.bound != infergate.TimeoutBoundCall) {
					t.Errorf("err = %v: matches ErrStreamTimeout = %v, for bound %q", err, streamed, tc.bound)
				}
			})
		})
	}
}

// Audio streamed as application/octet-stream is handed to the caller as soon as its first bytes
// arrive, not once 64 bytes have.
func TestSpeechReturnsOnFirstBytes(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, "ID3")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		io.WriteString(w, "-rest")
	}))
	defer srv.Close()
	defer close(release)
	c := testClient(t, srv.URL)
	audio, err := c.Audio.Speech(context.Background(), infergate.SpeechRequest{Input: "hi", Model: "tts-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer audio.Close()
	head := make([]byte, 3)
	if _, err := io.ReadFull(bufio.NewReader(audio), head); err != nil || string(head) != "ID3" {
		t.Errorf("first bytes = %q, %v", head, err)
	}
}

// An error after retries says how many attempts were made: an *APIError from the last answer, a
// *TransportError when no answer came.
func TestErrorsCountAttempts(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"overloaded"}}`)
	}))
	defer srv.Close()
	_, err := testClient(t, srv.URL, infergate.WithMaxRetries(2)).Chat.Create(context.Background(), hello())
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.Attempts != 3 || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("err = %v; want an *APIError after 3 attempts", err)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, err = testClient(t, closed.URL, infergate.WithMaxRetries(2)).Models.List(context.Background())
	var transportErr *infergate.TransportError
	if !errors.As(err, &transportErr) || transportErr.Attempts != 3 || transportErr.Method != http.MethodGet ||
		!strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("err = %v; want a *TransportError after 3 attempts", err)
	}
	_, err = testClient(t, closed.URL).Models.List(context.Background())
	if !errors.As(err, &transportErr) || transportErr.Attempts != 1 || strings.Contains(err.Error(), "attempts") {
		t.Errorf("err = %v; want a *TransportError of one attempt, which says nothing of attempts", err)
	}
}
