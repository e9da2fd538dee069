package infergate

import (
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

	"github.com/infergate/infergate-go/internal/transport"
)

// Option configures the client, or one call. Pass options to NewClient for every call of the client,
// or after a method's other arguments for that call only, where they override the client's:
//
//	client.Chat.Create(ctx, req, infergate.WithAPIKey("sk-tenant-b"), infergate.WithTimeout(30*time.Second))
type Option func(*config)

// WithAPIKey sets the API key sent as a bearer token. It overrides INFERGATE_API_KEY.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = secret{key} } }

// WithAccessToken sets the JWT from an OAuth 2.0 login that chat-history routes take. It overrides
// INFERGATE_ACCESS_TOKEN. It is sent to chat-history routes only; without it they get the API key.
func WithAccessToken(jwt string) Option { return func(c *config) { c.accessToken = secret{jwt} } }

// WithBaseURL sets the service address, either its root ("https://host") or its API root
// ("https://host/api/v1"). It overrides INFERGATE_BASE_URL.
func WithBaseURL(u string) Option { return func(c *config) { c.rawBaseURL = u } }

// WithHTTPClient sets the HTTP client that carries requests (for proxies, TLS settings or tests).
// Its Timeout, if any, also bounds streams, so leave it zero and use WithTimeout or the stream
// timeouts instead. The client is copied, never changed.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithTimeout bounds every call that is not a stream, from its first attempt to the last byte of the
// answer, retries and the waits between them included (default DefaultTimeout, 10 minutes). A call
// that runs out fails with a *TimeoutError matching context.DeadlineExceeded. Streams are bounded by
// WithStreamTimeouts instead (and by their context). d must be positive.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithMaxRetries sets how many times a failed call is retried (default 2). Zero disables retries.
func WithMaxRetries(n int) Option { return func(c *config) { c.maxRetries = max(n, 0) } }

// WithMaxRetryAfter sets the longest Retry-After the client will wait out (default one minute). A
// server asking for longer gets its error returned at once, with the wait in APIError.RetryAfter.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *config) { c.maxRetryAfter = d } }

// WithRetryBackoff sets the backoff between retries: the first wait is about base, doubling per
// attempt up to max, with jitter (defaults 500 ms and 8 s). A Retry-After from the server wins.
// NewClient refuses a negative wait or a max below base.
func WithRetryBackoff(base, max time.Duration) Option {
	return func(c *config) { c.retryBaseWait, c.retryMaxWait = base, max }
}

// WithSessionID runs every request in the given provider session unless the request names its own.
func WithSessionID(id string) Option { return func(c *config) { c.sessionID = id } }

// WithHeader adds a header to every request (to one call's, passed to a method). A name that is not
// an HTTP token, or a value with a control character such as CR or LF, is a *ValidationError before
// anything is sent.
func WithHeader(key, value string) Option {
	return func(c *config) { c.header.Add(key, value) }
}

// WithLogger routes the client's diagnostics (retries, skipped stream events, warnings) to logger.
// By default nothing is logged. Credentials never appear in log records.
func WithLogger(logger *slog.Logger) Option { return func(c *config) { c.logger = logger } }

// WithStreamTimeouts bounds a stream's silences: firstByte is the longest wait from sending the
// request to the first byte of the answer (default 6 minutes, because a cold model can take minutes
// to start), idle the longest gap between two reads after that (default 2 minutes). A stream that
// stays silent longer fails with an error matching ErrStreamTimeout. Zero keeps a default; a
// negative value makes NewClient fail.
func WithStreamTimeouts(firstByte, idle time.Duration) Option {
	return func(c *config) {
		if firstByte < 0 || idle < 0 {
			c.optionErrs = append(c.optionErrs, invalid("StreamTimeouts", "must not be negative, got %v and %v", firstByte, idle))
		}
		if firstByte > 0 {
			c.firstByteTimeout = firstByte
		}
		if idle > 0 {
			c.idleTimeout = idle
		}
	}
}

// WithMaxLineSize sets the longest stream line accepted (default 64 MiB). A longer line ends the
// stream with an error instead of growing memory without bound.
func WithMaxLineSize(bytes int) Option { return func(c *config) { c.maxLine = bytes } }

// secret holds a credential. It formats as a placeholder so that it cannot leak through %v, %+v,
// %#v or slog.
type secret struct{ value string }

func (s secret) String() string       { return s.redacted() }
func (s secret) GoString() string     { return s.redacted() }
func (s secret) LogValue() slog.Value { return slog.StringValue(s.redacted()) }
func (s secret) redacted() string {
	if s.value == "" {
		return "[unset]"
	}
	return "[redacted]"
}

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
	catalogTTL          time.Duration
	responseInfo        *ResponseInfo
	optionErrs          []error  // values an Option refused, reported by NewClient
	secretForms         []string // the credentials as a server may write them back; see redact
}

func defaultConfig() *config {
	return &config{
		apiKey:           secret{os.Getenv("INFERGATE_API_KEY")},
		accessToken:      secret{os.Getenv("INFERGATE_ACCESS_TOKEN")},
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
		catalogTTL:       DefaultCatalogTTL,
	}
}

// finish validates the configuration and derives what the client needs.
func (c *config) finish() error {
	c.secretForms = secretForms(c.apiKey, c.accessToken)
	if err := c.check(); err != nil {
		return err
	}
	if c.rawBaseURL == "" {
		c.rawBaseURL = DefaultBaseURL
	}
	u, err := parseBaseURL(c.rawBaseURL)
	if err != nil {
		var invalidURL *ValidationError
		if errors.As(err, &invalidURL) {
			invalidURL.Reason = c.redactString(invalidURL.Reason)
		}
		return err
	}
	c.baseURL = u
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) && (c.apiKey.value != "" || c.accessToken.value != "") {
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
func (c *config) transportClient() *http.Client {
	base := c.httpClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = transport.KeepIdle(withMiddleware(rt, c.middleware))
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

// with returns the client one call runs on: c itself when the call passes no options, else a copy
// whose configuration is c's with the call's options applied on top. The copy shares c's connection
// pool and caches.
func (c *Client) with(opts []Option) (*Client, error) {
	if len(opts) == 0 {
		return c, nil
	}
	cfg := c.cfg.clone()
	for _, opt := range opts {
		if opt != nil {
			opt(cfg)
		}
	}
	if err := cfg.finish(); err != nil {
		return nil, err
	}
	call := *c
	call.cfg = cfg
	if cfg.httpClient != c.cfg.httpClient || len(cfg.middleware) != len(c.cfg.middleware) {
		call.hc = cfg.transportClient()
	}
	return &call, nil
}

// clone copies the configuration so that a call's options cannot change the client's.
func (c *config) clone() *config {
	out := *c
	out.header = c.header.Clone()
	out.middleware = slices.Clip(c.middleware)
	out.optionErrs = nil
	return &out
}
