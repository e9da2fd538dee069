package gatewaytest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// manualClock is a clock a test moves by hand.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// limitedAt starts a fake enforcing q whose clock stands at 13:37:12 until the test moves it, and
// a client of it that does not retry.
func limitedAt(t *testing.T, q infergate.Quotas, opts ...gatewaytest.ServerOption) (*gatewaytest.Server, *infergate.Client, *manualClock) {
	t.Helper()
	clock := &manualClock{now: time.Date(2026, 7, 23, 13, 37, 12, 0, time.UTC)}
	opts = append([]gatewaytest.ServerOption{gatewaytest.WithRateLimits(q), gatewaytest.WithClock(clock.Now), gatewaytest.WithAnyModel()}, opts...)
	s := gatewaytest.New(t, opts...)
	return s, s.Client(infergate.WithMaxRetries(0)), clock
}

func chatTo(model, text string) infergate.ChatRequest {
	return infergate.ChatRequest{Model: model, Messages: []infergate.Message{infergate.UserMessage(text)}}
}

// rateHeaders are the values of the x-ratelimit-* headers and Retry-After, "" for those not sent.
func rateHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for _, name := range []string{"Limit-Requests", "Remaining-Requests", "Limit-Tokens", "Remaining-Tokens", "Reset-Requests", "Reset-Tokens"} {
		out[name] = h.Get("X-RateLimit-" + name)
	}
	out["Retry-After"] = h.Get("Retry-After")
	return out
}

func checkHeaders(t *testing.T, what string, h http.Header, want map[string]string) {
	t.Helper()
	got := rateHeaders(h)
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: %s = %q, want %q (all: %v)", what, name, got[name], v, got)
		}
	}
}

const reset1338 = "2026-07-23T13:38:00+00:00"

// An answer carries its group's limits and what is left: a non-streamed answer after its tokens
// are counted, a stream as it was admitted; the client reads them into RateLimits.
func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	s, client, _ := limitedAt(t, infergate.GatewayQuotas())
	ctx := context.Background()
	s.Enqueue(gatewaytest.Reply{Content: "a", Usage: &gatewaytest.Usage{PromptTokens: 100, CompletionTokens: 20}},
		gatewaytest.Reply{Content: "b c", Usage: &gatewaytest.Usage{PromptTokens: 7, CompletionTokens: 3}},
		gatewaytest.Reply{Content: "d", Usage: &gatewaytest.Usage{PromptTokens: 1, CompletionTokens: 1}})
	var info infergate.ResponseInfo
	if _, err := client.Chat.Create(ctx, chatTo("glm-5", "hi"), infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	checkHeaders(t, "answer", info.Header, map[string]string{"Limit-Requests": "20", "Remaining-Requests": "19",
		"Limit-Tokens": "500000", "Remaining-Tokens": "499880", "Reset-Requests": reset1338, "Reset-Tokens": reset1338, "Retry-After": ""})
	want := infergate.RateLimits{LimitRequests: 20, RemainingRequests: 19, LimitTokens: 500000, RemainingTokens: 499880,
		ResetRequests: time.Date(2026, 7, 23, 13, 38, 0, 0, time.UTC), ResetTokens: time.Date(2026, 7, 23, 13, 38, 0, 0, time.UTC)}
	if info.RateLimits == nil || !info.RateLimits.ResetRequests.Equal(want.ResetRequests) ||
		info.RateLimits.LimitRequests != want.LimitRequests || info.RateLimits.RemainingRequests != want.RemainingRequests ||
		info.RateLimits.LimitTokens != want.LimitTokens || info.RateLimits.RemainingTokens != want.RemainingTokens ||
		!info.RateLimits.ResetTokens.Equal(want.ResetTokens) {
		t.Errorf("RateLimits %+v, want %+v", info.RateLimits, want)
	}

	st, err := client.Chat.Stream(ctx, chatTo("glm-5.1", "hi"), infergate.WithResponseInfo(&info))
	if err != nil {
		t.Fatal(err)
	}
	for st.Next() {
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	checkHeaders(t, "stream", info.Header, map[string]string{"Remaining-Requests": "18", "Remaining-Tokens": "499880"})

	// The stream's tokens counted once it ended; another group's budget is its own.
	if _, err := client.Chat.Create(ctx, chatTo("kimi-k2.6", "hi"), infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	checkHeaders(t, "after the stream", info.Header, map[string]string{"Remaining-Requests": "17", "Remaining-Tokens": "499868"})
	if _, err := client.Chat.Create(ctx, chatTo("llama-3.2-3b", "hi"), infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	checkHeaders(t, "group S", info.Header, map[string]string{"Limit-Requests": "500", "Remaining-Requests": "499", "Limit-Tokens": "1000000"})

	// Routes the gateway does not limit carry no limits.
	if _, err := client.Models.List(ctx, infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	if info.RateLimits != nil {
		t.Errorf("the models route announced limits: %+v", info.RateLimits)
	}
}

// The 21st request of a window to an L model is refused with the gateway's body and Retry-After,
// and the next window admits again.
func TestRateLimitRequestsPerWindow(t *testing.T) {
	t.Parallel()
	_, client, clock := limitedAt(t, infergate.GatewayQuotas())
	ctx := context.Background()
	for i := range 20 {
		if _, err := client.Chat.Create(ctx, chatTo("deepseek-v4-pro", "hi")); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	clock.Set(clock.Now().Add(47*time.Second + 500*time.Millisecond)) // 13:37:59.5
	_, err := client.Chat.Create(ctx, chatTo("deepseek-v4-pro", "hi"))
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("the 21st request: %v, want a 429", err)
	}
	if apiErr.StatusCode != 429 || apiErr.RetryAfter != time.Second || apiErr.Type != "requests" || apiErr.Code != "rate_limit_exceeded" {
		t.Errorf("429: %+v", apiErr)
	}
	if want := `{"error":{"message":"Rate limit exceeded: 20/20 requests per minute. Please retry after 1 seconds.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`; string(apiErr.Body) != want {
		t.Errorf("body\n got %s\nwant %s", apiErr.Body, want)
	}
	checkHeaders(t, "429", apiErr.Header, map[string]string{"Retry-After": "1", "Limit-Requests": "20", "Remaining-Requests": "0",
		"Limit-Tokens": "500000", "Reset-Requests": reset1338, "Reset-Tokens": reset1338})
	if apiErr.RateLimits == nil || apiErr.RateLimits.RemainingRequests != 0 {
		t.Errorf("RateLimits %+v", apiErr.RateLimits)
	}
	// A refused request takes no place: the count stays full until the window ends.
	if _, err := client.Chat.Create(ctx, chatTo("glm-5", "hi")); !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("still in the window: %v", err)
	}
	clock.Set(time.Date(2026, 7, 23, 13, 38, 0, 0, time.UTC))
	var info infergate.ResponseInfo
	if _, err := client.Chat.Create(ctx, chatTo("glm-5", "hi"), infergate.WithResponseInfo(&info)); err != nil {
		t.Fatalf("the next window: %v", err)
	}
	checkHeaders(t, "next window", info.Header, map[string]string{"Remaining-Requests": "19", "Reset-Requests": "2026-07-23T13:39:00+00:00"})
}

// Tokens are admitted on the gateway's estimate, max(characters/4, 1), against the tokens answers
// used in the window; a refusal for tokens keeps its request counted.
func TestRateLimitTokens(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{Groups: []infergate.QuotaGroup{{Name: "T", Models: []string{"glm-5"},
		Quota: infergate.Quota{Requests: 100, Tokens: 10}}}, Default: infergate.Quota{Requests: 100, Tokens: 10}}
	s, client, _ := limitedAt(t, q)
	ctx := context.Background()
	_, err := client.Chat.Create(ctx, chatTo("glm-5", strings.Repeat("x", 44))) // 11 tokens
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != "tokens" ||
		apiErr.Message != "Rate limit exceeded: 0/10 tokens per minute. Please retry after 48 seconds." {
		t.Fatalf("44 characters: %v", err)
	}
	s.Enqueue(gatewaytest.Reply{Content: "ok", Usage: &gatewaytest.Usage{PromptTokens: 4, CompletionTokens: 2}})
	if _, err := client.Chat.Create(ctx, chatTo("glm-5", strings.Repeat("x", 43))); err != nil { // 10 tokens
		t.Fatalf("43 characters: %v", err)
	}
	// Six tokens used: an estimate of 5 is refused, one of 4 admitted; an array of parts counts
	// its repr: [{'type': 'text', 'text': 'ab'}] is 34 characters, 8 tokens.
	parts := infergate.ChatRequest{Model: "glm-5", Messages: []infergate.Message{infergate.UserMessageParts(infergate.TextPart("ab"))}}
	_, err = client.Chat.Create(ctx, parts)
	if !errors.As(err, &apiErr) || apiErr.Message != "Rate limit exceeded: 6/10 tokens per minute. Please retry after 48 seconds." {
		t.Fatalf("parts: %v", err)
	}
	checkHeaders(t, "tokens 429", apiErr.Header, map[string]string{"Remaining-Tokens": "4", "Remaining-Requests": "97"})
	if _, err := client.Chat.Create(ctx, chatTo("glm-5", strings.Repeat("y", 20))); !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("an estimate of 5 over 4 left: %v", err)
	}
	if _, err := client.Chat.Create(ctx, chatTo("glm-5", strings.Repeat("y", 19))); err != nil {
		t.Fatalf("an estimate of 4: %v", err)
	}
}

// The embeddings route's 429 nests the error in "detail", always says "tokens" and quotes the
// tokens' figures, and sends no reset headers.
func TestRateLimitEmbeddingsBody(t *testing.T) {
	t.Parallel()
	q := infergate.GatewayQuotas()
	for i := range q.Groups {
		if q.Groups[i].Name == "embedding" {
			q.Groups[i].Quota.Requests = 2
		}
	}
	_, client, _ := limitedAt(t, q)
	ctx := context.Background()
	var info infergate.ResponseInfo
	for range 2 {
		if _, err := client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: "text-embedding-bge-m3",
			Input: []string{"one two", "three"}}, infergate.WithResponseInfo(&info)); err != nil {
			t.Fatal(err)
		}
	}
	checkHeaders(t, "embeddings", info.Header, map[string]string{"Limit-Requests": "2", "Remaining-Requests": "0",
		"Limit-Tokens": "0", "Remaining-Tokens": "0", "Reset-Requests": reset1338})
	_, err := client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: "text-embedding-bge-m3", Input: []string{"x"}})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("the third request: %v", err)
	}
	if want := `{"detail":{"error":{"message":"Rate limit exceeded: 6/0 tokens per minute. Please retry after 48 seconds.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}}`; string(apiErr.Body) != want {
		t.Errorf("body\n got %s\nwant %s", apiErr.Body, want)
	}
	checkHeaders(t, "embeddings 429", apiErr.Header, map[string]string{"Retry-After": "48", "Limit-Requests": "2",
		"Remaining-Requests": "0", "Limit-Tokens": "0", "Remaining-Tokens": "0", "Reset-Requests": "", "Reset-Tokens": ""})
	if apiErr.RetryAfter != 48*time.Second {
		t.Errorf("RetryAfter %v", apiErr.RetryAfter)
	}
}

// Each API key has its own quota, named by its first 9 characters as the gateway names it: keys
// that share them share it.
func TestRateLimitPerKey(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{Default: infergate.Quota{Requests: 1}}
	s, client, _ := limitedAt(t, q, gatewaytest.WithAcceptedAPIKeys("sk-abcdef-1", "sk-test-k-other"))
	ctx := context.Background()
	if _, err := client.Chat.Create(ctx, chatTo("", "hi")); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(ctx, chatTo("", "hi")); !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("the key's second request: %v", err)
	}
	other := s.Client(infergate.WithMaxRetries(0), infergate.WithAPIKey("sk-abcdef-1"))
	if _, err := other.Chat.Create(ctx, chatTo("", "hi")); err != nil {
		t.Fatalf("another key: %v", err)
	}
	sibling := s.Client(infergate.WithMaxRetries(0), infergate.WithAPIKey("sk-test-k-other"))
	if _, err := sibling.Chat.Create(ctx, chatTo("", "hi")); !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("a key sharing %q's first 9 characters: %v", gatewaytest.DefaultAPIKey, err)
	}
}

// Requests are counted in the group of the model they name, and tokens in the group of the model
// that served them, as the gateway does: a name the catalogue does not know counts its request in
// the group its name matches, and its tokens in the default model's.
func TestRateLimitGroupOfNameAndOfServedModel(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{Groups: []infergate.QuotaGroup{
		{Name: "L", Models: []string{"glm-5"}, Quota: infergate.Quota{Requests: 5, Tokens: 1000}},
		{Name: "M", Models: []string{gatewaytest.DefaultModel}, Quota: infergate.Quota{Requests: 5, Tokens: 1000}},
	}}
	clock := &manualClock{now: time.Date(2026, 7, 23, 13, 37, 12, 0, time.UTC)}
	s := gatewaytest.New(t, gatewaytest.WithRateLimits(q), gatewaytest.WithClock(clock.Now))
	client := s.Client(infergate.WithMaxRetries(0))
	ctx := context.Background()
	s.Enqueue(gatewaytest.Reply{Usage: &gatewaytest.Usage{PromptTokens: 300, CompletionTokens: 0}})
	var info infergate.ResponseInfo
	if _, err := client.Chat.Create(ctx, chatTo("glm", "hi"), infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	// The headers after recording are the served model's group's.
	checkHeaders(t, "served by the default", info.Header, map[string]string{"Remaining-Requests": "5", "Remaining-Tokens": "700"})
	// A stream's headers are its admission's: L's count, which both requests took from.
	st, err := client.Chat.Stream(ctx, chatTo("glm-5", "hi"), infergate.WithResponseInfo(&info))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	checkHeaders(t, "L", info.Header, map[string]string{"Limit-Requests": "5", "Remaining-Requests": "3", "Remaining-Tokens": "1000"})
}

// Requests racing for a window's last places get exactly as many as there are.
func TestRateLimitConcurrentAdmission(t *testing.T) {
	t.Parallel()
	_, client, _ := limitedAt(t, infergate.Quotas{Default: infergate.Quota{Requests: 20}})
	ctx := context.Background()
	var mu sync.Mutex
	admitted, refused := 0, 0
	var wg sync.WaitGroup
	for range 60 {
		wg.Go(func() {
			_, err := client.Chat.Create(ctx, chatTo("", "hi"))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				admitted++
			case errors.Is(err, infergate.ErrRateLimited):
				refused++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if admitted != 20 || refused != 40 {
		t.Errorf("%d admitted and %d refused, want 20 and 40", admitted, refused)
	}
}
