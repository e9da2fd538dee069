package infergate

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ResponseInfo is what the server said about a call besides its answer. Pass WithResponseInfo to a
// method to have it filled in.
type ResponseInfo struct {
	StatusCode int         // the HTTP status, e.g. 200
	Header     http.Header // the response's headers as received
	RequestID  string      // X-Request-Id: quote it when reporting a problem
	RateLimits *RateLimits // nil when the response announced none
	// Fallbacks lists the models that failed, in the order tried, before the one that answered
	// (WithFallbackModels), and those skipped because they were cooling (WithModelCooldown), whose
	// Err is ErrModelCooling, at their place in the list; the other fields describe the answering
	// model's response. Nil when the first model answered.
	Fallbacks []ModelAttempt
	// Cost is what a chat call cost, as ModelPrices.Cost computes it from the usage the answer
	// reported and the prices of the model that served it (after a fallback, the serving model's).
	// For a stream it is set when the stream ends, with the usage it reported (nil until then).
	// The prices are those of the catalogue the client has cached (Models.Get, Models.Resolve and
	// WithContextGuard cache it), completed with WithModelFacts and the built-in table, which alone
	// give them when no catalogue is cached: a call never downloads the catalogue to price itself.
	// Nil when the answer reported no usage, when the model's prices are unknown or in two
	// currencies, and for the other routes.
	Cost *Money
}

// WithResponseInfo fills info with the response's status, headers, request id and rate limits once
// the call has its answer: for a stream, once Stream returns (its Cost once it ends). It is an option for one call: NewClient
// refuses it, because concurrent calls would write the same struct. After a failed attempt that was
// retried, info describes the last response; after a fallback (WithFallbackModels), the serving
// model's, with the models that failed before it in Fallbacks. Given more than once (say, by a
// framework adapter and by its caller), every info given is filled.
func WithResponseInfo(info *ResponseInfo) Option {
	return func(c *config) {
		if info != nil {
			c.responseInfos = append(c.responseInfos[:len(c.responseInfos):len(c.responseInfos)], info)
		}
	}
}

// RateLimits are the limits a response announced in its X-RateLimit-* headers. A count the server
// did not send is -1 (0 is a real count: nothing left); a reset it did not send is the zero time.
type RateLimits struct {
	LimitRequests, RemainingRequests int64 // X-RateLimit-Limit-Requests and -Remaining-Requests: requests in the window
	LimitTokens, RemainingTokens     int64 // X-RateLimit-Limit-Tokens and -Remaining-Tokens: tokens in the window
	// ResetRequests and ResetTokens are when the windows reset. This gateway sends an ISO-8601
	// time, OpenAI a duration such as "6m0s", counted from when the response arrived.
	ResetRequests, ResetTokens time.Time
}

var rateLimitHeaders = []string{"X-Ratelimit-Limit-Requests", "X-Ratelimit-Remaining-Requests", "X-Ratelimit-Limit-Tokens",
	"X-Ratelimit-Remaining-Tokens", "X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"}

// parseRateLimits reads the X-RateLimit-* headers of a response that arrived at now; nil when it
// has none.
func parseRateLimits(h http.Header, now time.Time) *RateLimits {
	announced := false
	for _, name := range rateLimitHeaders {
		announced = announced || h.Get(name) != ""
	}
	if !announced {
		return nil
	}
	return &RateLimits{
		LimitRequests:     headerInt(h, "X-RateLimit-Limit-Requests"),
		RemainingRequests: headerInt(h, "X-RateLimit-Remaining-Requests"),
		LimitTokens:       headerInt(h, "X-RateLimit-Limit-Tokens"),
		RemainingTokens:   headerInt(h, "X-RateLimit-Remaining-Tokens"),
		ResetRequests:     headerReset(h, "X-RateLimit-Reset-Requests", now),
		ResetTokens:       headerReset(h, "X-RateLimit-Reset-Tokens", now),
	}
}

func headerInt(h http.Header, name string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get(name)), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// resetLayouts are the timestamp forms seen in reset headers; one without a zone is UTC.
var resetLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", time.RFC1123}

func headerReset(h http.Header, name string, now time.Time) time.Time {
	v := strings.TrimSpace(h.Get(name))
	if v == "" {
		return time.Time{}
	}
	for _, layout := range resetLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(d)
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && secs < 1e9 {
		return now.Add(time.Duration(secs * float64(time.Second)))
	}
	return time.Time{}
}

// record fills the call's ResponseInfo, when it asked for one.
func (c *config) record(resp *http.Response) {
	if len(c.responseInfos) == 0 {
		return
	}
	header := c.redactHeader(resp.Header)
	info := ResponseInfo{StatusCode: resp.StatusCode, Header: header,
		RequestID: header.Get("X-Request-Id"), RateLimits: parseRateLimits(header, time.Now())}
	for i, dst := range c.responseInfos {
		if i > 0 {
			info.Header = header.Clone()
		}
		*dst = info
	}
}

// recordCost sets the call's ResponseInfo.Cost from answer's usage at the prices of model, which
// served it.
func (c *config) recordCost(model string, answer *ChatCompletion) {
	if len(c.responseInfos) == 0 || answer == nil || c.cachedCatalogue == nil {
		return
	}
	var usage *Usage
	for _, u := range []*Usage{answer.Usage, answer.UsageFromProvider, answer.UsageFromConsumer} {
		if u != nil {
			usage = u
			break
		}
	}
	if usage == nil {
		return
	}
	prices := c.pricesIn(c.cachedCatalogue(c), model)
	if prices == nil {
		return
	}
	cost, err := prices.cost(*usage)
	if err != nil {
		return
	}
	for _, info := range c.responseInfos {
		info.Cost = Ptr(cost)
	}
}

// recordCost sets the call's ResponseInfo.Cost once the stream has ended.
func (s *ChatStream) recordCost() {
	if len(s.cfg.responseInfos) > 0 {
		s.cfg.recordCost(s.model, s.Completion())
	}
}
