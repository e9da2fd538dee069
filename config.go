package infergate

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/infergate/infergate-go/internal/redact"
	"github.com/infergate/infergate-go/internal/transport"
)

// config is everything a call runs with. The client holds one, made by NewClient; a call passed
// options runs with its own, derived from the client's by derive, and never with a copy of the
// client: a config reaches no service, cache or other call, but for the catalogue the context guard
// reads, which is keyed by API root and credential.
type config struct {
	apiKey, accessToken secret
	rawBaseURL          string
	baseURL             *url.URL
	httpClient          *http.Client
	maxRetries          int
	maxRetryAfter       time.Duration
	retryBaseWait       time.Duration
	retryMaxWait        time.Duration
	sessionID           string
	header              http.Header
	logger              *slog.Logger
	firstByteTimeout    time.Duration
	idleTimeout         time.Duration
	maxLine             int
	timeout             time.Duration
	middleware          []Middleware
	callMiddleware      []Middleware // middleware passed to one call, run inside the client's
	standIn             bool         // a middleware answers in place of the gateway; see WithStandIn
	observers           []Observer
	atMostOnce          bool
	catalogTTL          time.Duration
	modelFacts          []Model // WithModelFacts' entries, the last given first
	responseInfos       []*ResponseInfo
	maxConcurrency      int
	concurrencyGiven    bool         // WithMaxConcurrency was applied, which only a client may be given
	limiter             Limiter      // WithLimiter's
	limiterGiven        bool         // WithLimiter was applied, which only a client may be given
	limiters            []Limiter    // what admits every attempt: WithMaxConcurrency's places, then limiter
	limitKeys           [2]string    // LimitRequest.Key of the API key and of the access token
	fallbackModels      []string     // tried after the request's model; see WithFallbackModels
	sticky              *stickyModel // a loop's turns start at the model that served the previous one
	optionErrs          []error      // values an Option refused, reported by NewClient
	redactor            redact.Set   // blanks the credentials out of what a server writes back; see redact
	thinkTags           bool         // reasoning written inline as <think>…</think>; see WithThinkTags

	cooldown       time.Duration   // how long a failed model is skipped; see WithModelCooldown
	cooldownStore  CooldownStore   // WithCooldownStore's; nil for localCooldowns
	localCooldowns *localCooldowns // the client's own store, which its calls share

	// The context guard (WithContextGuard): whether it is on, how it counts, and the client's
	// cached catalogue, which it reads the models' windows from.
	contextGuard bool
	tokenCounter TokenCounter
	catalogue    func(context.Context, *config) ([]Model, error)
	// cachedCatalogue is the catalogue the client holds, never downloaded: ResponseInfo.Cost's
	// prices come from it.
	cachedCatalogue func(*config) []Model

	// retrier carries the requests: made once per client from httpClient and the client's
	// middleware, and shared by every call that does not bring its own HTTP client.
	retrier *transport.Retrier
}

func defaultConfig() *config {
	return &config{
		apiKey:           newSecret(os.Getenv("INFERGATE_API_KEY")),
		accessToken:      newSecret(os.Getenv("INFERGATE_ACCESS_TOKEN")),
		rawBaseURL:       os.Getenv("INFERGATE_BASE_URL"),
		maxRetries:       2,
		maxRetryAfter:    time.Minute,
		retryBaseWait:    500 * time.Millisecond,
		retryMaxWait:     8 * time.Second,
		header:           http.Header{},
		logger:           slog.New(slog.DiscardHandler),
		firstByteTimeout: 6 * time.Minute,
		idleTimeout:      2 * time.Minute,
		timeout:          DefaultTimeout,
		catalogTTL:       defaultCatalogTTL,
		localCooldowns:   &localCooldowns{},
	}
}

// finish validates the configuration and derives what the client needs. A configuration derived
// from parent (nil for a client's own) keeps what parent derived from the same credentials and
// URL, which a call's options seldom change: a call does not make them again.
func (c *config) finish(parent *config) error {
	sameCredentials := parent != nil && c.apiKey == parent.apiKey && c.accessToken == parent.accessToken
	if !sameCredentials {
		c.redactor = redact.New(redactedText, c.apiKey.reveal(), c.accessToken.reveal())
	}
	// Both name the credential's quota by its hash.
	if (c.limiter != nil || c.cooldown > 0) && !(sameCredentials && (parent.limiter != nil || parent.cooldown > 0)) {
		c.limitKeys = [2]string{credentialKey(c.apiKey.reveal()), credentialKey(c.accessToken.reveal())}
	}
	if err := c.check(); err != nil {
		return err
	}
	if c.rawBaseURL == "" {
		c.rawBaseURL = DefaultBaseURL
	}
	u := c.baseURL
	if parent == nil || c.rawBaseURL != parent.rawBaseURL {
		var err error
		if u, err = parseBaseURL(c.rawBaseURL); err != nil {
			var invalidURL *ValidationError
			if errors.As(err, &invalidURL) {
				invalidURL.Reason = c.redactString(invalidURL.Reason)
			}
			return err
		}
	}
	c.baseURL = u
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) && (c.apiKey.set() || c.accessToken.set()) {
		c.logger.Warn("infergate: credentials will be sent over plain http", slog.String("host", u.Host))
	}
	return nil
}

// parseBaseURL accepts the service root or the API root and returns the API root. Its errors show
// the URL without user information or query, where credentials would be.
func parseBaseURL(raw string) (*url.URL, error) {
	shown := strconv.Quote(displayURL(raw))
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		reason := "is not a valid URL"
		if _, shownErr := url.Parse(displayURL(raw)); shownErr != nil {
			var urlErr *url.Error
			if errors.As(shownErr, &urlErr) {
				reason += ": " + urlErr.Err.Error()
			}
		}
		return nil, &ValidationError{Field: "BaseURL", Reason: shown + " " + reason}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, &ValidationError{Field: "BaseURL", Reason: shown + " must start with https:// or http://"}
	}
	if u.Host == "" {
		return nil, &ValidationError{Field: "BaseURL", Reason: shown + " has no host"}
	}
	if u.User != nil {
		return nil, &ValidationError{Field: "BaseURL", Reason: "must not carry credentials; use WithAPIKey"}
	}
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/api/v1") {
		u.Path += "/api/v1"
	}
	return u, nil
}

// displayURL is raw as it may appear in an error: without user information ("user:key@"), query
// or fragment. It works on the text, so that it also cleans what url.Parse refuses.
func displayURL(raw string) string {
	s := strings.TrimSpace(raw)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	authority := s
	prefix := ""
	if i := strings.Index(s, "//"); i >= 0 {
		prefix, authority = s[:i+2], s[i+2:]
	}
	rest := ""
	if i := strings.Index(authority, "/"); i >= 0 {
		authority, rest = authority[:i], authority[i:]
	}
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		authority = "redacted@" + authority[i+1:]
	}
	return prefix + authority + rest
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// transportClient copies the user's HTTP client, never changing it, so that go-retryablehttp cannot
// close the idle connections it shares with other calls and so that the redirect policy applies.
func (c *config) transportClient(mw []Middleware) *http.Client {
	base := c.httpClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = transport.KeepIdle(limitStage{withMiddleware(callStage{rt}, mw)})
	hc.CheckRedirect = keepCredentialsHome(base.CheckRedirect)
	return &hc
}

// keepCredentialsHome wraps a redirect policy (Go's default when next is nil: at most 10 redirects)
// so that credentials follow a redirect only to the origin of the first request: same scheme, host
// and port. Go itself would forward Authorization to another port of the same host, and over an
// https to http downgrade.
func keepCredentialsHome(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if next != nil {
			if err := next(req, via); err != nil {
				if err == http.ErrUseLastResponse {
					return err // compared by identity in net/http
				}
				return transport.Permanent(err) // asking again gets the same refusal
			}
		} else if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if len(via) > 0 && !sameOrigin(via[0].URL, req.URL) {
			for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
				req.Header.Del(h)
			}
		}
		return nil
	}
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// derive returns the configuration of a call passed opts: c itself when there are none, else a copy
// with opts applied on top. The copy shares c's connections; middleware the call adds runs per
// request inside the client's (see callStage), so no transport is rebuilt for it.
func (c *config) derive(opts []Option) (*config, error) {
	if len(opts) == 0 {
		return c, nil
	}
	out := *c
	out.header = c.header.Clone()
	out.middleware = slices.Clip(c.middleware)
	out.observers = slices.Clip(c.observers)
	out.optionErrs = nil
	out.concurrencyGiven, out.limiterGiven = false, false
	for _, opt := range opts {
		if opt != nil {
			opt(&out)
		}
	}
	if err := out.finish(c); err != nil {
		return nil, err
	}
	if out.concurrencyGiven {
		return nil, invalid("MaxConcurrency", "WithMaxConcurrency bounds a client's calls: pass it to NewClient, not to one call")
	}
	if out.limiterGiven {
		return nil, invalid("Limiter", "WithLimiter admits a client's calls: pass it to NewClient, not to one call")
	}
	if out.httpClient != c.httpClient {
		out.retrier = transport.NewRetrier(out.transportClient(out.middleware))
	} else {
		out.callMiddleware = out.middleware[len(c.middleware):]
	}
	return &out, nil
}

// check refuses option values that cannot work, before any request: a negative wait would panic in
// the backoff's random jitter, and a header that breaks the HTTP syntax would be refused by Go on
// every attempt. No reason repeats a credential or a header's value.
func (c *config) check() error {
	if len(c.optionErrs) > 0 {
		return c.optionErrs[0]
	}
	switch {
	case c.timeout <= 0:
		return invalid("Timeout", "must be positive, got %v", c.timeout)
	case c.retryBaseWait < 0 || c.retryMaxWait < 0:
		return invalid("RetryBackoff", "waits must not be negative, got %v and %v", c.retryBaseWait, c.retryMaxWait)
	case c.retryMaxWait < c.retryBaseWait:
		return invalid("RetryBackoff", "the longest wait %v is shorter than the first %v", c.retryMaxWait, c.retryBaseWait)
	case c.maxRetryAfter < 0:
		return invalid("MaxRetryAfter", "must not be negative, got %v", c.maxRetryAfter)
	case c.maxLine < 0:
		return invalid("MaxLineSize", "must not be negative, got %d", c.maxLine)
	case c.maxRetries < 0:
		return invalid("MaxRetries", "must not be negative, got %d", c.maxRetries)
	case c.catalogTTL < 0:
		return invalid("CatalogTTL", "must not be negative, got %v", c.catalogTTL)
	case c.maxConcurrency < 0:
		return invalid("MaxConcurrency", "must not be negative, got %d", c.maxConcurrency)
	case c.cooldown < 0:
		return invalid("ModelCooldown", "must not be negative, got %v", c.cooldown)
	}
	if !validHeaderValue(c.apiKey.reveal()) {
		return invalid("APIKey", "holds a control character such as a line break; it cannot be sent in a header")
	}
	if !validHeaderValue(c.accessToken.reveal()) {
		return invalid("AccessToken", "holds a control character such as a line break; it cannot be sent in a header")
	}
	return checkHeader("WithHeader", c.header)
}

// checkHeader refuses header names that are not HTTP tokens and values with control characters
// (CR and LF above all, which would split the header).
func checkHeader(field string, h http.Header) error {
	for name, values := range h {
		if !validHeaderName(name) {
			return invalid(field, "header name %q is not a valid HTTP header name", name)
		}
		for _, v := range values {
			if !validHeaderValue(v) {
				return invalid(field, "the value of header %s holds a control character such as a line break", name)
			}
		}
	}
	return nil
}

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r >= 0x80 || !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
			strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// validHeaderValue allows visible characters, spaces, tabs and bytes of UTF-8 text.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}
