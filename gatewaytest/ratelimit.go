package gatewaytest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/quota"
)

// WithRateLimits makes the chat completions and embeddings routes enforce q as the deployed
// gateway enforces its limits (infergate.GatewayQuotas are its own), so that code sharing a
// quota can be tested offline:
//
//   - per API key, by its first 9 characters, and per group, chosen by Quotas.Group on the model
//     the request names ("" is the default group); each group's requests and tokens are counted in
//     fixed windows of Quota.Window (0 is one minute) aligned on the Unix epoch, on the server's
//     clock (WithClock; the default clock stands still, so a window never ends);
//   - a request is admitted on the gateway's estimate of its input, max(characters/4, 1): its
//     request is counted first, and refused when the window's count is full; then it is refused,
//     its request still counted, when the window's tokens plus the estimate exceed Quota.Tokens;
//   - an answered request adds the prompt and completion tokens of its usage to the group of the
//     model that served it, with no check, in the window it was admitted in (a stream when it
//     ends with its usage);
//   - a refusal is a 429 with the gateway's body (on the embeddings route, nested in "detail"
//     and always of type "tokens", as the gateway's own bug writes it) and Retry-After, the whole
//     seconds left in the window;
//   - the x-ratelimit-* headers are sent as the gateway sends them: on 429s, on answers (after
//     the tokens are added, but on streams) and on a model's outage, not on other errors or
//     routes, and only for a group with a Requests bound. The resets are ISO-8601 times such as
//     2026-07-23T13:38:00+00:00.
//
// A count of 0 (or less) is no bound; Quota.Concurrent is not enforced, as the gateway has no
// such bound. Without this option every answer carries fixed headers and nothing is limited.
func WithRateLimits(q infergate.Quotas) ServerOption {
	return func(c *config) { c.quotas = &q }
}

// WithAcceptedAPIKeys makes the server accept keys too, besides the key WithAcceptedAPIKey sets:
// an account's other keys, each with its own quota under WithRateLimits.
func WithAcceptedAPIKeys(keys ...string) ServerOption {
	return func(c *config) { c.moreKeys = append(c.moreKeys, keys...) }
}

// rateLimits are the counts of an enforcing server, by group and caller.
type rateLimits struct {
	quotas  infergate.Quotas
	mu      sync.Mutex
	buckets map[bucketKey]*bucket
}

type bucketKey struct {
	group   string
	grouped bool // false for the default quota
	caller  string
}

// bucket is one group's counts for one caller in its current window.
type bucket struct {
	start            time.Time
	requests, tokens int
}

func newRateLimits(q infergate.Quotas) *rateLimits {
	return &rateLimits{quotas: q, buckets: map[bucketKey]*bucket{}}
}

// quotaOf returns the quota model falls under, its bounds made whole, and its bucket key.
func (l *rateLimits) quotaOf(caller, model string) (infergate.Quota, bucketKey) {
	q, key := l.quotas.Default, bucketKey{caller: caller}
	if model != "" {
		if g, ok := l.quotas.Group(model); ok {
			q, key.group, key.grouped = g.Quota, g.Name, true
		}
	}
	q.Requests, q.Tokens = max(q.Requests, 0), max(q.Tokens, 0)
	return q, key
}

// bucket returns key's bucket for the window holding now, emptied when its window has passed.
// The caller holds l.mu.
func (l *rateLimits) bucket(key bucketKey, w quota.Window) *bucket {
	b := l.buckets[key]
	if b == nil {
		b = &bucket{}
		l.buckets[key] = b
	}
	if !b.start.Equal(w.Start) {
		*b = bucket{start: w.Start}
	}
	return b
}

// limitState is what one request's headers say: its group's quota and counts in a window.
type limitState struct {
	quota            infergate.Quota
	window           quota.Window
	requests, tokens int // the window's counts, this request's request included
	caller           string
	at               time.Time // when the request was admitted
	refused          string    // "requests" or "tokens" when refused
}

// admit counts a request to model by caller at now, whose input is estimated at estimate tokens.
func (l *rateLimits) admit(caller, model string, estimate int, now time.Time) *limitState {
	q, key := l.quotaOf(caller, model)
	st := &limitState{quota: q, window: quota.WindowAt(now, q.Window), caller: caller, at: now}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(key, st.window)
	st.tokens = b.tokens
	if q.Requests > 0 && b.requests+1 > q.Requests {
		st.requests, st.refused = b.requests, "requests"
		return st
	}
	b.requests++
	st.requests = b.requests
	if estimate > 0 && q.Tokens > 0 && b.tokens+estimate > q.Tokens {
		st.refused = "tokens"
	}
	return st
}

// record adds an answered request's tokens to the group of the model that served it, and returns
// the state its headers then say; st itself when there was nothing to add.
func (l *rateLimits) record(st *limitState, served string, tokens int) *limitState {
	if st == nil || tokens <= 0 {
		return st
	}
	q, key := l.quotaOf(st.caller, served)
	after := &limitState{quota: q, window: quota.WindowAt(st.at, q.Window), caller: st.caller, at: st.at}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(key, after.window)
	b.tokens += tokens
	after.requests, after.tokens = b.requests, b.tokens
	return after
}

// setHeaders writes the x-ratelimit-* headers, in lower case as the gateway's server sends them,
// when the group has a Requests bound.
func (st *limitState) setHeaders(h http.Header) {
	if st == nil || st.quota.Requests <= 0 {
		return
	}
	reset := quota.FormatReset(st.window.Reset)
	st.setCounts(h, max(st.quota.Requests-st.requests, 0), st.remainingTokens())
	h["x-ratelimit-reset-requests"] = []string{reset}
	h["x-ratelimit-reset-tokens"] = []string{reset}
}

func (st *limitState) remainingTokens() int {
	if st.quota.Tokens == 0 {
		return 0
	}
	return max(st.quota.Tokens-st.tokens, 0)
}

func (st *limitState) setCounts(h http.Header, remainingRequests, remainingTokens int) {
	h["x-ratelimit-limit-requests"] = []string{strconv.Itoa(st.quota.Requests)}
	h["x-ratelimit-remaining-requests"] = []string{strconv.Itoa(remainingRequests)}
	h["x-ratelimit-limit-tokens"] = []string{strconv.Itoa(st.quota.Tokens)}
	h["x-ratelimit-remaining-tokens"] = []string{strconv.Itoa(remainingTokens)}
}

// rateLimitError is the error object of the gateway's 429, its members in the gateway's order.
type rateLimitError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

func (st *limitState) refusal(what string) rateLimitError {
	current, limit := st.requests, st.quota.Requests
	if what == "tokens" {
		current, limit = st.tokens, st.quota.Tokens
	}
	return rateLimitError{
		Message: fmt.Sprintf("Rate limit exceeded: %d/%d %s per minute. Please retry after %d seconds.",
			current, limit, what, st.window.RetryAfter(st.at)),
		Type: what, Code: "rate_limit_exceeded",
	}
}

// refuseChat writes the chat route's 429: all seven headers, and remaining counts that are the
// limits less the counts, so tokens may remain on a refusal for tokens.
func (st *limitState) refuseChat(w http.ResponseWriter) {
	h := w.Header()
	reset := quota.FormatReset(st.window.Reset)
	h["retry-after"] = []string{strconv.Itoa(st.window.RetryAfter(st.at))}
	st.setCounts(h, max(st.quota.Requests-st.requests, 0), max(st.quota.Tokens-st.tokens, 0))
	h["x-ratelimit-reset-requests"] = []string{reset}
	h["x-ratelimit-reset-tokens"] = []string{reset}
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": st.refusal(st.refused)})
}

// refuseEmbeddings writes the embeddings route's 429: the error nested in "detail", its type
// always "tokens" and its figures the tokens' (the gateway looks for "RPM" in a lower-case
// status), and no reset headers.
func (st *limitState) refuseEmbeddings(w http.ResponseWriter) {
	remainingRequests, remainingTokens := max(st.quota.Requests-st.requests, 0), st.remainingTokens()
	if st.refused == "requests" {
		remainingRequests = 0
	} else {
		remainingTokens = 0
	}
	h := w.Header()
	h["retry-after"] = []string{strconv.Itoa(st.window.RetryAfter(st.at))}
	st.setCounts(h, remainingRequests, remainingTokens)
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"detail": map[string]any{"error": st.refusal("tokens")}})
}

// admitRequest admits request r to model, whose JSON body estimate reads, when the server enforces
// limits. It answers a refusal itself and reports false; the state is nil when nothing is enforced.
func (s *Server) admitRequest(w http.ResponseWriter, r *http.Request, model string,
	estimate func([]byte) (int, error), refuse func(*limitState, http.ResponseWriter)) (*limitState, bool) {
	if s.limits == nil {
		return nil, true
	}
	var body []byte
	if rec, ok := r.Context().Value(recordKey{}).(*Request); ok {
		body = rec.Body
	}
	tokens, err := estimate(body)
	if err != nil {
		tokens = quota.Estimate(0)
	}
	st := s.limits.admit(callerKey(r), model, tokens, s.now(r))
	if st.refused != "" {
		refuse(st, w)
		return nil, false
	}
	return st, true
}

// callerKey is the gateway's name for the caller's quota: its API key's first 9 characters.
func callerKey(r *http.Request) string {
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return "key:" + key[:min(len(key), keyPrefixLen)]
}

// recordUsage adds an answer's tokens to the counts and returns the state its headers say.
func (s *Server) recordUsage(st *limitState, served string, u *Usage) *limitState {
	if s.limits == nil || u == nil {
		return st
	}
	return s.limits.record(st, served, u.PromptTokens+u.CompletionTokens)
}

// streamSendsUsage reports whether a stream written in full ends with its usage, which is what
// the gateway counts a stream's tokens from.
func streamSendsUsage(c completion) bool {
	q := c.Quirks
	truncated := q.TruncateAfter > 0 && q.TruncateAfter < len(streamChunks(c))
	return !truncated && q.InBandError == nil
}
