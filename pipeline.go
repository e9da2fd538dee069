package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/infergate/infergate-go/internal/transport"
)

// The pipeline. Every service method describes its endpoint as a route and hands it, with the
// call's configuration, to one of three runners:
//
//	do[T]     a JSON answer, decoded into a T
//	exchange  an answer read whole and decoded by the route itself (transcriptions)
//	open      an answer read as it arrives (event streams, audio)
//
// All three go through send, the one place that builds the request, adds credentials and the
// idempotency key, retries, and turns a failed status into an *APIError. The runners add what is
// common to their kind: WithTimeout's bound and the read of the body (do, exchange), the stream
// timeouts (open), the decode, and the observers (all).

// authKind says which credential a route takes.
type authKind uint8

const (
	authAPIKey      authKind = iota
	authHistory              // the access token (JWT) when set, otherwise the API key
	authAccessToken          // the access token only: the route refuses API keys
	authNone                 // no credential at all, e.g. the health check
)

// route describes one call of an endpoint.
type route struct {
	op          OperationName // what observers are told the call does; see Operation.Name
	method      string
	path        string // below the /api/v1 root, e.g. "/chat/completions"
	query       url.Values
	body        any // nil, []byte, or retryablehttp.ReaderFunc
	payload     any // a value sent as the JSON body, when body is nil
	contentType string
	auth        authKind
	accept      string // the Accept header; JSON when empty
	successFlag bool   // the route reports failure in a 2xx as "success": false
	outsideAPI  bool   // path is below the service root instead of the /api/v1 root, e.g. "/health"
	once        bool   // the body can be read only once, so the call is never retried
	model       string // the model the call asks for, for observers
	request     any    // the caller's request, for observers
	stream      bool   // the answer is a stream of events, for observers

	attempts int // how many attempts send made, for the errors a successful status turns out to be
	// spent counts the attempts this route's earlier sends made (a stream resent before its first
	// delta), which WithMaxRetries' budget covers too.
	spent int
	key   string // the Idempotency-Key every send of this route repeats, once made
	held  bool   // the caller already holds the call's bound (a call trying several models)
	// tokens is the gateway's admission estimate of the input (LimitRequest.Tokens).
	tokens int
	limit  limitCall // the admission of the latest send's attempts; see admit
}

// run is do for a route whose body needs nothing of the call's configuration.
func run[T any](ctx context.Context, client *Client, opts []Option, r route, out *T) error {
	c, err := client.configure(opts)
	if err != nil {
		return err
	}
	return do(ctx, c, r, out)
}

// do runs a route whose answer is JSON and decodes it into out (when not nil).
func do[T any](ctx context.Context, c *config, r route, out *T) error {
	return exchange(ctx, c, &r, func(resp *http.Response, body []byte) (any, error) {
		if out == nil {
			return nil, c.errorIn200(&r, resp, body)
		}
		return out, decodeJSON(c, &r, resp, body, out)
	})
}

// exchange runs a route whose answer is read whole, bounded by WithTimeout from the first attempt
// to the answer's last byte, and decoded by decode, whose result observers see.
func exchange(ctx context.Context, c *config, r *route, decode func(*http.Response, []byte) (any, error)) error {
	if !r.held {
		var cancel context.CancelFunc
		ctx, cancel = c.callContext(ctx)
		defer cancel()
	}
	ctx, obs := c.observe(ctx, r)
	result, err := c.read(ctx, r, obs, decode)
	err = timedOut(ctx, err)
	obs.end(result, err)
	return err
}

func (c *config) read(ctx context.Context, r *route, obs *observation, decode func(*http.Response, []byte) (any, error)) (any, error) {
	defer r.limit.endLast() // also when an observer's hook panics before the body is closed
	resp, err := c.send(ctx, r, obs)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return nil, errorf("infergate: reading %s response: %w", r.path, err)
	}
	result, err := decode(resp, body)
	if r.limit.last != nil {
		r.limit.last.noteUsage(answerUsage(result))
	}
	return result, err
}

// answerUsage is the token usage an answer reports, nil when none.
func answerUsage(result any) *Usage {
	switch a := result.(type) {
	case *ChatCompletion:
		if a != nil {
			return a.Usage
		}
	case *EmbeddingResponse:
		if a != nil {
			return &a.Usage
		}
	}
	return nil
}

// send performs the call with retries and returns the response for a 2xx status. Any other status
// becomes an *APIError; the response body is then already closed.
func (c *config) send(ctx context.Context, r *route, obs *observation) (*http.Response, error) {
	if r.payload != nil {
		body, err := json.Marshal(r.payload)
		if err != nil {
			return nil, errorf("infergate: encoding %s request: %w", r.path, err)
		}
		r.body, r.contentType, r.payload = body, "application/json", nil
	}
	if c.admit(r) {
		ctx = context.WithValue(ctx, limitCallKey{}, &r.limit)
	}
	req, err := c.newRequest(ctx, r, obs)
	if err != nil {
		return nil, err
	}
	p := c.policy()
	p.MaxRetries = max(0, p.MaxRetries-r.spent)
	if r.once {
		p.MaxRetries = 0
	}
	resp, made, err := c.retrier.Do(p, req)
	if r.limit.refused != nil {
		made-- // the attempt refused was never sent
		if made == 0 {
			return nil, r.limit.refused
		}
	}
	obs.attempts(made)
	r.spent += made
	attempts := r.spent
	r.attempts = attempts
	if err != nil {
		var answer *standInAnswer
		if errors.As(err, &answer) {
			return nil, c.redactError(answer.err)
		}
		return nil, &TransportError{Method: r.method, Path: req.URL.Path, Attempts: attempts, Err: c.redactError(err)}
	}
	c.record(resp)
	obs.response(resp)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		body, _ := readBody(resp)
		apiErr := c.newAPIError(resp.StatusCode, resp.Header, body)
		apiErr.Attempts = attempts
		c.logger.LogAttrs(ctx, slog.LevelDebug, "infergate: request failed",
			slog.String("method", r.method), slog.String("path", r.path),
			slog.Int("status", resp.StatusCode), slog.String("request_id", apiErr.RequestID))
		return nil, apiErr
	}
	return resp, nil
}

func (c *config) newRequest(ctx context.Context, r *route, obs *observation) (*retryablehttp.Request, error) {
	credential, err := c.credential(r.auth)
	if err != nil {
		if !c.standIn {
			return nil, err
		}
		// A stand-in may answer without one; past it, the call fails with this error.
		ctx = context.WithValue(ctx, missingCredentialKey{}, err)
	}
	u := *c.baseURL
	if r.outsideAPI {
		u.Path = strings.TrimSuffix(u.Path, "/api/v1")
	}
	root := u.EscapedPath()
	u.Path += r.path
	u.RawPath = ""
	if strings.Contains(r.path, "%") {
		u.RawPath = root + r.path
		u.Path, _ = url.PathUnescape(u.RawPath)
	}
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	if hooks := c.attemptHooks(obs); hooks != nil {
		ctx = context.WithValue(ctx, callStageKey{}, hooks)
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.method, u.String(), r.body)
	if err != nil {
		return nil, errorf("infergate: building %s %s: %w", r.method, r.path, err)
	}
	h := req.Header
	for k, v := range c.header {
		h[k] = v
	}
	if credential != "" {
		h.Set("Authorization", "Bearer "+credential)
	}
	h.Set("User-Agent", userAgent)
	if r.contentType != "" {
		h.Set("Content-Type", r.contentType)
	}
	switch {
	case r.accept != "":
		h.Set("Accept", r.accept)
	default:
		h.Set("Accept", "application/json")
	}
	if r.method == http.MethodPost && h.Get(idempotencyHeader) == "" {
		if r.key == "" {
			r.key = newIdempotencyKey()
		}
		h.Set(idempotencyHeader, r.key)
	}
	return req, nil
}

const userAgent = "infergate-go/" + Version

// idempotencyHeader carries one key for all the attempts of a POST, so that a server that saw an
// earlier attempt can tell the retry is the same request and not run (and bill) it twice. A key the
// caller set with WithHeader is kept.
const idempotencyHeader = "Idempotency-Key"

func newIdempotencyKey() string {
	b := make([]byte, 0, len("infergate-")+32)
	b = append(b, "infergate-"...)
	b = strconv.AppendUint(b, rand.Uint64(), 36)
	b = strconv.AppendUint(b, rand.Uint64(), 36)
	return string(b)
}

// credential picks the secret for a route. A missing one is reported before anything is sent.
func (c *config) credential(kind authKind) (string, error) {
	switch {
	case kind == authNone:
		return "", nil
	case kind == authAccessToken && !c.accessToken.set():
		return "", &ValidationError{Field: "AccessToken", Reason: "this route takes the access token only: use WithAccessToken or set INFERGATE_ACCESS_TOKEN"}
	case kind != authAPIKey && c.accessToken.set():
		return c.accessToken.reveal(), nil
	}
	if !c.apiKey.set() {
		return "", &ValidationError{Field: "APIKey", Reason: "no API key: use WithAPIKey or set INFERGATE_API_KEY"}
	}
	return c.apiKey.reveal(), nil
}

// sessionFor returns the session a request runs in: its own, else the client's.
func (c *config) sessionFor(requested string) string {
	if requested != "" {
		return requested
	}
	return c.sessionID
}

func (c *config) policy() transport.Policy {
	return transport.Policy{
		MaxRetries:    c.maxRetries,
		MaxRetryAfter: c.maxRetryAfter,
		BaseWait:      c.retryBaseWait,
		MaxWait:       c.retryMaxWait,
		AtMostOnce:    c.atMostOnce,
		Logger:        c.logger,
		Redact:        c.redactError,
	}
}

// decodeJSON turns a successful response's body into out, or into the error the body reports
// (errorIn200). A fast decoder that takes the body has seen its top-level keys, so the body is
// searched for an error only when one of them may report it; when it does, out is left as it was.
func decodeJSON[T any](c *config, r *route, resp *http.Response, body []byte, out *T) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	fast, ok := any(out).(fastDecoder)
	if !ok {
		if err := c.errorIn200(r, resp, body); err != nil {
			return err
		}
		return c.unmarshal(resp, body, out)
	}
	before := *out
	decoded, envelope := fast.decodeFast(body)
	if !decoded || envelope {
		if err := c.errorIn200(r, resp, body); err != nil {
			*out = before
			return err
		}
	}
	if decoded {
		keepRaw(out, body)
		return nil
	}
	return c.unmarshal(resp, body, out)
}

// unmarshal decodes body into out with encoding/json.
func (c *config) unmarshal(resp *http.Response, body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		return c.newDecodeError(resp.StatusCode, resp.Header, body, err)
	}
	keepRaw(out, body)
	return nil
}

// fastDecoder is an answer that reads the usual shape of its body in one pass, where encoding/json
// would first validate the whole body and then decode it. It validates what it accepts and declines
// everything else (decoded false), which encoding/json then decodes. Taking a body, it reports
// whether a key at its top level may be one errorIn200 reads (envelope): encoding/json matches
// keys without regard to case, and in some versions to '_' and '-', so "Error" or "SUC_CESS"
// count, and so does any key that is not ASCII. It writes only fields of the answer itself, never
// through a pointer the answer held before, so that a copy of the answer restores it.
type fastDecoder interface {
	decodeFast(body []byte) (decoded, envelope bool)
}

// keepRaw hands the body to answers that keep it (ChatCompletion.RawJSON). The body is this call's
// own buffer, so it is kept without a copy.
func keepRaw(out any, body []byte) {
	if k, ok := out.(interface{ keepRaw([]byte) }); ok {
		k.keepRaw(body)
	}
}

// errorIn200 catches the gateway routes that answer an error with a successful status: a body whose
// top level has an "error" key reporting an error (not null, false or empty) is an error whatever the
// status says, and so is "success": false on the routes that report failure that way.
func (c *config) errorIn200(r *route, resp *http.Response, body []byte) error {
	if !bytes.Contains(body, []byte(`"error"`)) && !(r.successFlag && bytes.Contains(body, []byte(`"success"`))) {
		return nil
	}
	var env envelope
	if json.Unmarshal(body, &env) != nil {
		return nil
	}
	failed := r.successFlag && env.Success != nil && !*env.Success
	if !isErrorValue(env.Error) && !failed {
		return nil
	}
	apiErr := c.newAPIError(resp.StatusCode, resp.Header, body)
	apiErr.Attempts = r.attempts
	return apiErr
}

// readBody reads a response's body, at most maxResponseBody bytes, into a buffer sized from
// Content-Length when the server sent one, so that a large answer is not copied as it grows.
func readBody(resp *http.Response) ([]byte, error) {
	limited := io.LimitReader(resp.Body, maxResponseBody)
	if n := resp.ContentLength; n > 0 && n <= maxResponseBody {
		buf := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
		_, err := buf.ReadFrom(limited)
		return buf.Bytes(), err
	}
	return io.ReadAll(limited)
}

// maxResponseBody bounds how much of a non-streaming response is read, so that a misbehaving server
// cannot exhaust memory.
const maxResponseBody = 256 << 20

// callStage is the innermost step of every client's transport: it runs what one call adds to each
// of its attempts (the call's own middleware, then the observers' attempt hooks), which travels
// with the request's context, so that the client's transport is built once.
type callStage struct{ next http.RoundTripper }

type callStageKey struct{}

func (s callStage) RoundTrip(req *http.Request) (*http.Response, error) {
	mw, _ := req.Context().Value(callStageKey{}).([]Middleware)
	if len(mw) == 0 {
		return s.next.RoundTrip(req)
	}
	return withMiddleware(s.next, mw).RoundTrip(req)
}

// attemptHooks is what the call adds to each attempt, nil when nothing. The observers' hooks see a
// failed attempt's error redacted, as callers do, since what they see ends up in traces and logs;
// the retry policy still judges the original.
func (c *config) attemptHooks(obs *observation) []Middleware {
	hooks := obs.attemptHooks()
	for i, h := range hooks {
		hooks[i] = c.redactingHook(h)
	}
	if len(c.callMiddleware) == 0 {
		return hooks
	}
	return append(append([]Middleware(nil), c.callMiddleware...), hooks...)
}

func (c *config) redactingHook(hook Middleware) Middleware {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		var original, redacted error
		resp, err := hook(req, func(req *http.Request) (*http.Response, error) {
			resp, err := next(req)
			original, redacted = err, c.redactError(err)
			return resp, redacted
		})
		if e, ok := err.(*redactedError); ok && error(e) == redacted {
			err = original
		}
		return resp, err
	}
}

// openCall is a call whose answer is read as it arrives.
type openCall struct {
	resp *http.Response
	body io.ReadCloser // resp.Body, watched for silences
	ctx  context.Context
	// release ends the call: it stops the watch and cancels the context. Safe to call more than once.
	release func()
	obs     *observation
}

// open runs a route whose answer is read as it arrives. The wait for the first byte and every
// silence after it are bounded by WithStreamTimeouts, and ctx by the caller; the call lives until
// release. Retries happen only before the answer starts.
func (c *config) open(ctx context.Context, r *route) (call *openCall, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	dog := &watchdog{firstByte: c.firstByteTimeout, idle: c.idleTimeout, cancel: cancel}
	dog.watch()
	release := sync.OnceFunc(func() {
		dog.stop()
		cancel(nil)
	})
	defer func() {
		if call == nil { // also when a middleware or an observer panicked: the request ends with the call
			release()
		}
	}()
	ctx, obs := c.observe(ctx, r)
	resp, err := c.send(ctx, r, obs)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrStreamTimeout) {
			err = cause
		}
		release()
		obs.end(nil, err)
		return nil, err
	}
	if obs != nil {
		// An answer left unread ends its operation with its context; every other end comes first,
		// since release cancels the context.
		context.AfterFunc(ctx, func() { obs.end(nil, context.Cause(ctx)) })
	}
	return &openCall{resp: resp, body: &watchedBody{ReadCloser: resp.Body, dog: dog}, ctx: ctx,
		release: release, obs: obs}, nil
}
