package infergate

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Option configures the client, or one call. Pass options to NewClient for every call of the client,
// or after a method's other arguments for that call only, where they override the client's:
//
//	client.Chat.Create(ctx, req, infergate.WithAPIKey("sk-tenant-b"), infergate.WithTimeout(30*time.Second))
type Option func(*config)

// WithAPIKey sets the API key sent as a bearer token. It overrides INFERGATE_API_KEY.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = newSecret(key) } }

// WithAccessToken sets the JWT from an OAuth 2.0 login that chat-history routes take. It overrides
// INFERGATE_ACCESS_TOKEN. It is sent to chat-history routes only; without it they get the API key.
func WithAccessToken(jwt string) Option { return func(c *config) { c.accessToken = newSecret(jwt) } }

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

// WithMaxRetries sets how many times a failed call is retried (default 2). Zero disables retries;
// a negative count is refused, like every negative bound. A chat stream that fails before its first
// delta is sent again within the same budget (see ChatService.Stream); with WithFallbackModels, the
// budget is each model's.
func WithMaxRetries(n int) Option { return func(c *config) { c.maxRetries = n } }

// WithMaxRetryAfter sets the longest Retry-After the client will wait out (default one minute). A
// server asking for longer gets its error returned at once, with the wait in APIError.RetryAfter.
// Zero waits out no Retry-After; a negative wait is refused.
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
// stays silent longer fails with a *TimeoutError (Bound TimeoutBoundFirstByte or TimeoutBoundIdle) matching
// ErrStreamTimeout and context.DeadlineExceeded. Zero keeps a default; a
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
// stream with an error instead of growing memory without bound. Zero keeps the default; a negative
// size is refused.
func WithMaxLineSize(bytes int) Option { return func(c *config) { c.maxLine = bytes } }

// WithMaxConcurrency bounds the client's calls in flight at once, every route's counted: at most n
// are sent or being answered, and the others wait for a place, bounded by their context (and, for
// a call that is not a stream, by WithTimeout). A call whose context ends while it waits returns
// the context's error and sends nothing. A stream, or the audio of Audio.Speak, holds its place
// until it ends, is closed or its context ends (nothing more can be read then, so a stream dropped
// without Close gives it back too); every attempt holds one, a retry, a stream sent again and a
// fallback each waiting for it again, as WithLimiter's permits do (it is the Concurrent bound of
// the same admission, for the whole client), and gives it back however it ends, a panic in a
// middleware or an observer included. Zero means no bound (the default); a negative n is refused.
// It is an option of the client: given to one call, the call is refused with a *ValidationError.
func WithMaxConcurrency(n int) Option {
	return func(c *config) { c.maxConcurrency, c.concurrencyGiven = n, true }
}

// WithAtMostOnce(true) never sends a POST again once an attempt of it reached the server in full:
// when the connection fails after that, the call ends with the error instead of a retry, because the
// server may already be running (and billing) it. Answers that say the request was not run (429,
// 503) and failures before the request was delivered are still retried. A chat stream that fails
// in-band before its first delta is not sent again either; WithFallbackModels still falls back.
//
// By default (false) such a POST is retried like any transient failure. Every attempt of a POST
// carries the same Idempotency-Key header, as the official OpenAI SDKs send, so that a server that
// honours it runs the request once; set your own key with WithHeader to tie a call to your records.
func WithAtMostOnce(on bool) Option { return func(c *config) { c.atMostOnce = on } }

// WithThinkTags reads the reasoning that models such as DeepSeek-R1 and Qwen3 write into their
// text as <think>…</think> (served by Fireworks, Novita or vLLM without a reasoning parser): it is
// moved from the content to Reasoning, in the deltas of Chat.Stream, in its Completion and in the
// answers of Chat.Create (and so in the typed answers, which then never read a value out of the
// reasoning), and the white space after the closing tag is dropped. The opening tag counts only at
// the start of the text, white space aside, and the first closing tag ends the reasoning: the text
// after it is content as it came, tags included. An answer that holds only the closing tag (chat
// templates that open it in the prompt) has all the text before it as reasoning; a tag never
// closed keeps the rest of the answer as reasoning. Content sent as a list of parts holding an
// image is left as it is. The chunks a stream hands out carry the reasoning already moved, so a
// ChatAccumulator of your own folding them agrees; one folding the raw events reads no tags.
//
// A stream cannot know what text that does not open with <think> is until "</think>" comes, which
// makes it reasoning, or the answer ends, which makes it content: it holds that text back until
// then. Give the option to the calls of models that think in their text rather than to a client
// that serves others too, whose streams would arrive in one piece at their end. Off by default.
func WithThinkTags() Option { return func(c *config) { c.thinkTags = true } }

// WithModelFacts adds facts about models to those the SDK knows: each model's ContextLength,
// Capabilities and Prices, when set, are used for the catalogue's model of that ID (without regard
// to case) and its variants (a ":web" or ":tee" suffix, an "alt-" prefix), unless the models route
// sends that fact itself. They win over the SDK's built-in table, and facts given later over those
// given earlier. Other fields are ignored. A model without an ID, or with a negative
// ContextLength, is refused.
func WithModelFacts(models ...Model) Option {
	return func(c *config) {
		for _, m := range models {
			switch {
			case strings.TrimSpace(m.ID) == "":
				c.optionErrs = append(c.optionErrs, invalid("ModelFacts", "a model needs an ID"))
				return
			case m.ContextLength < 0:
				c.optionErrs = append(c.optionErrs, invalid("ModelFacts", "%s: a negative ContextLength %d", m.ID, m.ContextLength))
				return
			}
		}
		given := slices.Clone(models)
		slices.Reverse(given)
		c.modelFacts = slices.Concat(given, c.modelFacts) // a new slice: a call's options never write into the client's
	}
}
