package infergate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// limitedAnswer is a chat completion whose usage says it used n prompt tokens.
const limitedAnswer = `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`

// arrivals is a server that answers every chat completion and records when each request arrived.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
	// answer writes the response; nil answers limitedAnswer at once.
	answer func(w http.ResponseWriter, r *http.Request)
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.times = append(a.times, time.Now())
	a.mu.Unlock()
	if a.answer != nil {
		a.answer(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, limitedAnswer)
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.times)
}

func (a *arrivals) at(i int) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.times[i]
}

func chatOf(text string) infergate.ChatRequest {
	return infergate.ChatRequest{Model: "m", Messages: []infergate.Message{infergate.UserMessage(text)}}
}

// Calls beyond a window's requests wait for the next window, aligned on the Unix epoch, rather than
// failing; none is lost.
func TestLimiterWaitsForTheNextWindow(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(3 * time.Second) // the windows start at multiples of 10 s, not at the first call
		srv := &arrivals{}
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
			infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Requests: 3, Window: 10 * time.Second}})))
		var wg sync.WaitGroup
		errs := make(chan error, 7)
		for range 7 {
			wg.Go(func() {
				_, err := c.Chat.Create(t.Context(), chatOf("hello"))
				errs <- err
			})
		}
		synctest.Wait()
		if n := srv.count(); n != 3 {
			t.Fatalf("%d calls sent in the first window, want 3", n)
		}
		time.Sleep(7*time.Second - time.Nanosecond) // the window ends 10 s after the epoch's last multiple of 10 s
		synctest.Wait()
		if n := srv.count(); n != 3 {
			t.Fatalf("%d calls sent before the window ended, want 3", n)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if n := srv.count(); n != 6 {
			t.Fatalf("%d calls sent once the second window began, want 6", n)
		}
		time.Sleep(10 * time.Second)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if n := srv.count(); n != 7 {
			t.Errorf("%d calls sent, want 7", n)
		}
	})
}

// A call that waits for room gives up when its context ends, and sends nothing.
func TestLimiterWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := &arrivals{}
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
			infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Requests: 1}})))
		if _, err := c.Chat.Create(t.Context(), chatOf("hello")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := c.Chat.Create(ctx, chatOf("hello")); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%d calls sent, want 1: the one that gave up was sent", n)
		}
	})
}

// Tokens are the gateway's admission estimate (a quarter of the characters): a window admits the
// calls whose estimates fit; a call whose estimate alone exceeds the quota is refused before it is
// sent, since no wait helps it.
func TestLimiterCountsEstimatedTokens(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := &arrivals{answer: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(limitedAnswer, `,"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}`, "", 1))
		}}
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
			infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Tokens: 10}})))
		text := strings.Repeat("é", 20) // 20 characters, 40 bytes: 5 tokens
		for range 3 {
			go func() { _, _ = c.Chat.Create(t.Context(), chatOf(text)) }()
		}
		synctest.Wait()
		if n := srv.count(); n != 2 {
			t.Fatalf("%d calls of 5 tokens sent under a quota of 10, want 2", n)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := srv.count(); n != 3 {
			t.Fatalf("%d calls sent after a window, want 3", n)
		}
		var invalid *infergate.ValidationError
		if _, err := c.Chat.Create(t.Context(), chatOf(strings.Repeat("x", 44))); !errors.As(err, &invalid) || invalid.Field != "Tokens" {
			t.Errorf("a call of 11 tokens under a quota of 10: err = %v, want a *ValidationError", err)
		}
		if n := srv.count(); n != 3 {
			t.Errorf("the call too large was sent")
		}
	})
}

// What the server says holds calls back: no requests left until the reset it announces, and a
// 429's Retry-After; the limiter's own count would have let them go.
func TestLimiterHeedsTheServer(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		header func(now time.Time) http.Header
		status int
		wait   time.Duration
	}{
		"remaining requests 0": {status: 200, wait: 30 * time.Second, header: func(now time.Time) http.Header {
			return http.Header{"X-Ratelimit-Limit-Requests": {"20"}, "X-Ratelimit-Remaining-Requests": {"0"},
				"X-Ratelimit-Reset-Requests": {now.Add(30 * time.Second).UTC().Format("2006-01-02T15:04:05+00:00")}}
		}},
		"remaining tokens 0": {status: 200, wait: 20 * time.Second, header: func(now time.Time) http.Header {
			return http.Header{"X-Ratelimit-Limit-Tokens": {"500000"}, "X-Ratelimit-Remaining-Tokens": {"0"},
				"X-Ratelimit-Reset-Tokens": {now.Add(20 * time.Second).UTC().Format("2006-01-02T15:04:05+00:00")}}
		}},
		"429 with Retry-After": {status: 429, wait: 5 * time.Second, header: func(time.Time) http.Header {
			return http.Header{"Retry-After": {"5"}}
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				first := true
				srv := &arrivals{answer: func(w http.ResponseWriter, _ *http.Request) {
					if first {
						first = false
						for k, v := range tc.header(time.Now()) {
							w.Header()[k] = v
						}
						if tc.status != 200 {
							w.Header().Set("Content-Type", "application/json")
							w.WriteHeader(tc.status)
							_, _ = io.WriteString(w, `{"error":{"message":"Rate limit exceeded","type":"requests","code":"rate_limit_exceeded"}}`)
							return
						}
					}
					w.Header().Set("Content-Type", "application/json")
					_, _ = io.WriteString(w, limitedAnswer)
				}}
				c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
					infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Requests: 100}})))
				start := time.Now()
				_, _ = c.Chat.Create(t.Context(), chatOf("hello"))
				if _, err := c.Chat.Create(t.Context(), chatOf("hello")); err != nil {
					t.Fatal(err)
				}
				if got := srv.at(1).Sub(start); got != tc.wait {
					t.Errorf("the next call was sent after %v, want %v", got, tc.wait)
				}
			})
		})
	}
}

// recording is a Limiter that admits everything and records what it was asked and told.
type recording struct {
	mu       sync.Mutex
	asked    []infergate.LimitRequest
	reports  []infergate.LimitReport
	inFlight atomic.Int32
}

func (r *recording) Acquire(_ context.Context, req infergate.LimitRequest) (infergate.Permit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	r.inFlight.Add(1)
	return recordedPermit{r}, nil
}

type recordedPermit struct{ r *recording }

func (p recordedPermit) Release(rep infergate.LimitReport) {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	p.r.reports = append(p.r.reports, rep)
	p.r.inFlight.Add(-1)
}

// Every attempt is admitted and released: a retry and a fallback acquire again, each release says
// what its attempt's answer said, and the key names the credential without revealing it.
func TestLimiterAdmitsEveryAttempt(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("glm-5", gatewaytest.OutageProviderError))
	lim := &recording{}
	c := gw.Client(infergate.WithLimiter(lim), infergate.WithMaxRetries(1), infergate.WithRetryBackoff(0, 0))
	if _, err := c.Chat.Create(t.Context(), infergate.ChatRequest{Model: "glm-5", Messages: []infergate.Message{infergate.UserMessage("hello there")}},
		infergate.WithFallbackModels("llama-3.3-70b"), infergate.WithMaxRetries(0)); err != nil {
		t.Fatal(err)
	}
	gw.FailNext(1, gatewaytest.DetailErrorReply(503, "busy"))
	if _, err := c.Chat.Create(t.Context(), infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("hi")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embeddings.Create(t.Context(), infergate.EmbeddingRequest{Model: "text-embedding-bge-m3", Input: []string{"abcd", "efg"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Models.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	lim.mu.Lock()
	defer lim.mu.Unlock()
	sum := sha256.Sum256([]byte(gatewaytest.DefaultAPIKey))
	key := "key:" + hex.EncodeToString(sum[:])[:16]
	want := []struct {
		model, route string
		tokens       int
		status       int
	}{
		{"glm-5", "/chat/completions", 2, 502},           // the model down
		{"llama-3.3-70b", "/chat/completions", 2, 200},   // the fallback
		{"llama-3.3-70b", "/chat/completions", 1, 503},   // a retry
		{"llama-3.3-70b", "/chat/completions", 1, 200},   // ...admitted again
		{"text-embedding-bge-m3", "/embeddings", 2, 200}, // "abcd efg": 8 characters
		{"", "/chat/models", 0, 404},                     // the catalogue's first place, which the fake lacks
		{"", "/models", 0, 200},
	}
	if len(lim.asked) != len(want) || len(lim.reports) != len(want) {
		t.Fatalf("%d attempts admitted, %d released; want %d", len(lim.asked), len(lim.reports), len(want))
	}
	for i, w := range want {
		req, rep := lim.asked[i], lim.reports[i]
		if req.Key != key || req.Model != w.model || req.Route != w.route || req.Tokens != w.tokens {
			t.Errorf("attempt %d asked %+v, want key %s, model %q, route %s, %d tokens", i, req, key, w.model, w.route, w.tokens)
		}
		if rep.StatusCode != w.status {
			t.Errorf("attempt %d released with status %d, want %d", i, rep.StatusCode, w.status)
		}
	}
	if u := lim.reports[1].Usage; u == nil || u.TotalTokens == 0 {
		t.Errorf("the answer's usage was not reported: %+v", u)
	}
	if u := lim.reports[4].Usage; u == nil || u.PromptTokens == 0 {
		t.Errorf("the embeddings' usage was not reported: %+v", u)
	}
}

// WithLimiter belongs to a client; a quota with a negative count or window is refused by NewClient;
// a model no group names falls to Default.
func TestLimiterValidation(t *testing.T) {
	t.Parallel()
	srv := &arrivals{}
	hc := infergate.WithHTTPClient(infergate.InProcessClient(srv))
	c := testClient(t, "https://gw.test", hc)
	var invalid *infergate.ValidationError
	if _, err := c.Chat.Create(t.Context(), chatOf("hi"), infergate.WithLimiter(infergate.NewLimiter(infergate.GatewayQuotas()))); !errors.As(err, &invalid) || invalid.Field != "Limiter" {
		t.Errorf("a call given WithLimiter: err = %v, want a *ValidationError", err)
	}
	for name, q := range map[string]infergate.Quotas{
		"requests":   {Default: infergate.Quota{Requests: -1}},
		"tokens":     {Groups: []infergate.QuotaGroup{{Name: "L", Models: []string{"glm"}, Quota: infergate.Quota{Tokens: -5}}}},
		"concurrent": {Default: infergate.Quota{Concurrent: -1}},
		"window":     {Groups: []infergate.QuotaGroup{{Name: "L", Quota: infergate.Quota{Window: -time.Second}}}},
	} {
		if _, err := infergate.NewClient(infergate.WithAPIKey("sk-test"), infergate.WithLimiter(infergate.NewLimiter(q))); !errors.As(err, &invalid) || invalid.Field != "Quotas" {
			t.Errorf("negative %s: err = %v, want a *ValidationError", name, err)
		}
		if _, err := infergate.NewLimiter(q).Acquire(t.Context(), infergate.LimitRequest{Model: "glm-5"}); !errors.As(err, &invalid) {
			t.Errorf("negative %s: Acquire: err = %v, want a *ValidationError", name, err)
		}
	}
	if n := srv.count(); n != 0 {
		t.Errorf("%d calls sent", n)
	}
}

// A model no group names counts in Default, and a group's models in the group's own budget.
func TestLimiterUnknownModelFallsToDefault(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := &arrivals{}
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
			infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{
				Groups:  []infergate.QuotaGroup{{Name: "L", Models: []string{"glm"}, Quota: infergate.Quota{Requests: 1}}},
				Default: infergate.Quota{Requests: 2},
			})))
		for _, model := range []string{"glm-5", "GLM-5.1:web", "zzz-unknown", "other", "another"} {
			go func() {
				if _, err := c.Chat.Create(t.Context(), infergate.ChatRequest{Model: model, Messages: []infergate.Message{infergate.UserMessage("hi")}}); err != nil {
					t.Error(err)
				}
			}()
		}
		synctest.Wait()
		if n := srv.count(); n != 3 {
			t.Errorf("%d calls sent in the first window, want 3: one of group L, two of Default", n)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := srv.count(); n != 5 {
			t.Errorf("%d calls sent after a window, want 5", n)
		}
	})
}

// A request's Tokens is an estimate: a negative one is refused, rather than counted as room for
// the calls that follow.
func TestLimiterRefusesNegativeTokens(t *testing.T) {
	t.Parallel()
	lim := infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Tokens: 10}})
	var invalid *infergate.ValidationError
	if p, err := lim.Acquire(t.Context(), infergate.LimitRequest{Route: "/chat/completions", Tokens: -1000}); !errors.As(err, &invalid) {
		if p != nil {
			p.Release(infergate.LimitReport{StatusCode: 200})
		}
		t.Fatalf("Tokens -1000: err = %v, want a *ValidationError", err)
	}
}

// An answer reporting more tokens than an int holds fills the window; the count does not wrap
// around to let every later call through.
func TestLimiterCountsHugeUsage(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := &arrivals{answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(limitedAnswer, `"prompt_tokens":3`, `"prompt_tokens":9223372036854775807`, 1))
		}}
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
			infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Tokens: 100}})))
		if _, err := c.Chat.Create(t.Context(), chatOf("hello")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := c.Chat.Create(ctx, chatOf("hello")); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the call after a full window: err = %v, want it held back until the window ends", err)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%d calls sent, want 1", n)
		}
	})
}
