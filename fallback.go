package infergate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WithFallbackModels names the models a chat call falls back to, in order, when the request's model
// cannot serve it. Give it to NewClient for every call, or to one call, whose list replaces the
// client's, so that WithFallbackModels() with no models turns a client's list off for one call; no
// models (the default) means no fallback. The request's own Model is the first model
// tried, an empty one (the gateway's choice) like any other, and so may be an entry of the list.
//
// A model cannot serve when, once the call's retries (WithMaxRetries) are spent on it, the answer is
// an HTTP 404, 429, 500, 502, 503 or 504, the request failed in transport, the first byte did not
// come within WithStreamTimeouts' bound, or a stream failed before its first delta (an in-band
// error, or an end without a finish_reason). The next model then gets the same request with only
// its model changed, as a new request with its own Idempotency-Key (a key set with WithHeader is
// sent as given to every model). A call never falls back on another status (400, 401, 403, 413,
// 422, … and an in-band error carrying one: no other model fixes the request or the credential),
// when its context ends or WithTimeout (which bounds all the models of a call) runs out, nor once
// a delta has reached the caller or Stream has returned a stream past its read-ahead (1 MiB).
//
// A call tries each model once: a name that comes again (the request's model repeated in the list,
// or a name listed twice) is passed over, since a second request to a model that may have run the
// first would be billed twice. Names are compared as the gateway resolves them, letter case aside
// ("Llama-3.3-70B" is "llama-3.3-70b"), and a hex id (IsBlockchainID) as spelt, as the gateway
// matches ids exactly; any other difference, white space included, makes another name (the aliases
// by which the gateway may resolve two spellings to one model are not known to the client). A list
// that names no model besides the request's leaves the call to that model alone, with its own error.
//
// It applies to ChatService.Create and ChatService.Stream and so to what is built on them:
// GenerateObject, StreamObject and RunTools, whose later turns start with the model that served the
// previous turn, the list rotated to start there. No other route falls back. WithResponseInfo's
// Fallbacks lists the models that failed before the one that served; when every model failed, the
// error is a *FallbackError. Observers see each model's request as an operation of its own.
// WithModelCooldown makes the calls that follow a failure skip the model that failed.
func WithFallbackModels(models ...string) Option {
	return func(c *config) { c.fallbackModels = append([]string(nil), models...) }
}

// ModelAttempt is one model a call tried and the error that model's request ended with, the error
// the call would have returned with that model alone (an *APIError, *StreamError, *TransportError,
// *TimeoutError, …), or a model the call skipped because it was cooling (WithModelCooldown), whose
// Err is ErrModelCooling.
type ModelAttempt struct {
	Model string // "" for the gateway's choice
	Err   error  // what that model's request ended with, or ErrModelCooling; never nil
}

// FallbackError is a call on which every model of its fallback list (WithFallbackModels) failed in
// a way that falls back, or was skipped as cooling (WithModelCooldown), at least one having been
// tried. errors.As reaches each model's error through Unwrap.
type FallbackError struct {
	Attempts []ModelAttempt // in the order tried
}

// Error names each model and how it failed.
func (e *FallbackError) Error() string {
	var b strings.Builder
	b.WriteString("infergate: every model failed: ")
	for i, a := range e.Attempts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(modelName(a.Model) + ": ")
		if a.Err != nil {
			b.WriteString(causeText(a.Err))
		}
	}
	return b.String()
}

// Unwrap returns each model's error, in the order tried.
func (e *FallbackError) Unwrap() []error {
	out := make([]error, 0, len(e.Attempts))
	for _, a := range e.Attempts {
		if a.Err != nil {
			out = append(out, a.Err)
		}
	}
	return out
}

func modelName(m string) string {
	if m == "" {
		return "(the gateway's choice)"
	}
	return strconv.Quote(m)
}

// stickyModel carries the model that served a turn of a loop (tools, object repairs) to the next
// turn, which starts there.
type stickyModel struct{ start int }

func withSticky(s *stickyModel) Option { return func(c *config) { c.sticky = s } }

// modelList is the models a chat request tries, in order: its own, then the fallbacks, each once,
// rotated to start at the one that served the loop's previous turn.
func (c *config) modelList(model string) []string {
	models := distinctModels(append([]string{model}, c.fallbackModels...))
	if c.sticky != nil {
		k := c.sticky.start % len(models)
		models = append(models[k:], models[:k]...)
	}
	return models
}

// distinctModels keeps each model at its first place in models only, reusing its array.
func distinctModels(models []string) []string {
	seen := make(map[string]struct{}, len(models))
	out := models[:0]
	for _, m := range models {
		key := modelKey(m)
		if _, again := seen[key]; !again {
			seen[key] = struct{}{}
			out = append(out, m)
		}
	}
	return out
}

// modelKey is model's name as the gateway matches it: letter case aside, but for a hex id, which
// it matches as spelt.
func modelKey(model string) string {
	if IsBlockchainID(model) {
		return model
	}
	return strings.ToLower(model)
}

// chatModels runs a chat request on each of its models in turn, through try, until one serves or
// fails in a way that does not fall back. It is the one place Create and Stream fall back. ctx is
// the call's: when it ends, nothing falls back. verbatim is what req's check proved of its tools'
// parameters, which every model's body is written with (see appendTools).
func (c *config) chatModels(ctx context.Context, req *ChatRequest, verbatim uint64, stream bool, try func(context.Context, *route) error) error {
	var models []string
	if len(c.fallbackModels) > 0 {
		models = c.modelList(req.Model)
	}
	guard := c.windowGuard(req)
	if len(models) <= 1 {
		if err := guard.check(ctx, req.Model); err != nil {
			return err
		}
		r, err := c.chatRoute(req, verbatim, req.Model, stream)
		if err != nil {
			return err
		}
		if err = try(ctx, r); err != nil && fallsBack(ctx, err) {
			c.cool(ctx, req.Model)
		}
		return err
	}
	cooling := c.cooling(ctx, models)
	var failed []ModelAttempt
	for i, model := range models {
		if cooling != nil && cooling[i] {
			failed = append(failed, ModelAttempt{Model: model, Err: ErrModelCooling})
			continue
		}
		if err := guard.check(ctx, model); err != nil {
			failed = append(failed, ModelAttempt{Model: model, Err: err})
			continue
		}
		r, err := c.chatRoute(req, verbatim, model, stream)
		if err != nil {
			return err
		}
		if err = try(ctx, r); err == nil || !fallsBack(ctx, err) {
			c.served(failed, i)
			return err
		}
		c.cool(ctx, model)
		failed = append(failed, ModelAttempt{Model: model, Err: err})
	}
	c.served(failed, -1)
	return &FallbackError{Attempts: failed}
}

// served records the models that failed and, for a loop's next turn, the one at index i that
// ended the call (-1 when none did).
func (c *config) served(failed []ModelAttempt, i int) {
	if len(failed) > 0 {
		for _, info := range c.responseInfos {
			info.Fallbacks = failed
		}
	}
	if c.sticky != nil && i > 0 {
		c.sticky.start += i
	}
}

// chatRoute is the route of a chat request sent to model.
func (c *config) chatRoute(req *ChatRequest, verbatim uint64, model string, stream bool) (*route, error) {
	sent := req
	if model != req.Model {
		sent = new(ChatRequest)
		*sent = *req
		sent.Model = model
	}
	body, err := c.renderChat(sent, verbatim, stream)
	if err != nil {
		return nil, err
	}
	r := &route{op: OperationChat, method: http.MethodPost, path: "/chat/completions", body: body,
		contentType: "application/json", model: model, stream: stream, held: true}
	if c.limiter != nil {
		r.tokens = admissionEstimate(sent.Messages)
	}
	if stream {
		r.accept = "text/event-stream"
	}
	if c.observed() {
		r.request = Ptr(*sent)
	}
	return r, nil
}

// fallsBack reports whether a model's failure lets the call try the next model: see
// WithFallbackModels.
func fallsBack(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		switch apiErr.StatusCode {
		case http.StatusNotFound, http.StatusTooManyRequests, http.StatusInternalServerError,
			http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var streamErr *StreamError
	if errors.As(err, &streamErr) {
		return !refusedRequest(streamErr.StatusCode)
	}
	var transportErr *TransportError
	return errors.As(err, &transportErr) || errors.Is(err, ErrStreamTimeout) || errors.Is(err, ErrIncompleteStream)
}

// refusedRequest tells the statuses that say the request or the credential is wrong, which neither
// another attempt nor another model fixes.
func refusedRequest(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
		http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// CooldownStore remembers which models are cooling after an outage (WithModelCooldown), so that
// every client sharing it skips them. The client's own in-process store is used when none is given;
// the redisinfergate module shares one through Redis. Its methods are called by concurrent calls.
//
// key names the quota of the credential the calls are sent with, without revealing it ("key:" and
// 16 hex digits of the credential's SHA-256), the same in every process. model is the model's
// name as the gateway matches it: in lower case, but for a hex id (IsBlockchainID), which is kept as
// spelt; "" is the gateway's choice.
type CooldownStore interface {
	// Cool marks model as cooling for the callers of key for d from now.
	Cool(ctx context.Context, key, model string, d time.Duration) error
	// Cooling reports, for each of models in order, whether it is cooling for the callers of key:
	// a slice as long as models.
	Cooling(ctx context.Context, key string, models []string) ([]bool, error)
}

// WithModelCooldown makes a chat model that failed in a way that falls back (see
// WithFallbackModels: a 404, 429 or 5xx once its retries are spent, a transport failure, a stream
// that failed before its first delta) cool for d: the chat calls that follow skip it, without
// sending it anything, and start with the next model of their list, so that an outage costs the
// retries of one call rather than of every call. A call whose models are all cooling tries every
// one of them in the list's order, as without the option. A model is cooling for the credential
// whose calls saw it fail: the calls of another API key do not skip it.
//
// Whether a model is cooling is decided when the call starts: a skipped model is not tried later
// in that call, even when the models after it fail too. WithResponseInfo's Fallbacks lists it, at
// its place in the list, with an error matching ErrModelCooling; so does a *FallbackError.
//
// Give it to NewClient for every call, or to one call, whose d replaces the client's. The client
// remembers failures in process, for all its calls; WithCooldownStore shares them with other clients
// and processes. A call with a single model (no fallback list) never skips it, but its failure
// cools it for the calls that have a list. Zero (the default) turns it off: nothing is remembered
// nor skipped. A negative d is a *ValidationError.
func WithModelCooldown(d time.Duration) Option { return func(c *config) { c.cooldown = d } }

// WithCooldownStore keeps the models cooling (WithModelCooldown) in store instead of the client's
// own in-process store, so that every client using the same store, in any process, skips them.
// It has no effect without WithModelCooldown. Like WithFallbackModels, it is given to NewClient or
// to one call; nil returns to the client's in-process store.
//
// A store that fails does not fail the call: the call goes on as if no model were cooling (or
// without remembering the failure), and the store's error is logged through WithLogger's logger.
func WithCooldownStore(store CooldownStore) Option {
	return func(c *config) { c.cooldownStore = store }
}

// cooldowns is the store a call's cooldowns go to; nil when the call has none.
func (c *config) cooldowns() CooldownStore {
	if c.cooldownStore != nil {
		return c.cooldownStore
	}
	if c.localCooldowns == nil { // a config made by hand, in the package's own tests
		return nil
	}
	return c.localCooldowns
}

// cooling reports which of models a call skips: nil when it skips none, which is also the case when
// every one of them is cooling, or when the store failed.
func (c *config) cooling(ctx context.Context, models []string) []bool {
	store, key := c.cooldowns(), c.limitKey(authAPIKey)
	if c.cooldown <= 0 || store == nil || key == "" {
		return nil
	}
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = modelKey(m)
	}
	cooling, err := store.Cooling(ctx, key, names)
	if err == nil && len(cooling) != len(models) {
		err = fmt.Errorf("it answered for %d models of %d", len(cooling), len(models))
	}
	if err != nil {
		c.logCooldownFailure(ctx, "Cooling", err)
		return nil
	}
	for _, on := range cooling {
		if !on {
			return cooling
		}
	}
	return nil
}

// cool remembers that model failed in a way that falls back.
func (c *config) cool(ctx context.Context, model string) {
	store, key := c.cooldowns(), c.limitKey(authAPIKey)
	if c.cooldown <= 0 || store == nil || key == "" {
		return
	}
	if err := store.Cool(ctx, key, modelKey(model), c.cooldown); err != nil {
		c.logCooldownFailure(ctx, "Cool", err)
	}
}

func (c *config) logCooldownFailure(ctx context.Context, method string, err error) {
	c.logger.LogAttrs(ctx, slog.LevelWarn, "infergate: the cooldown store failed; the call goes on without it",
		slog.String("method", method), slog.String("error", c.redactString(err.Error())))
}

// ErrModelCooling is the error of a model a chat call skipped because it was cooling after a
// failure (WithModelCooldown), in ResponseInfo.Fallbacks and in a *FallbackError's attempts.
var ErrModelCooling = errors.New("infergate: skipped: the model is cooling after a failure")

// localCooldowns is a client's in-process CooldownStore.
type localCooldowns struct {
	mu    sync.Mutex
	until map[cooldownEntry]time.Time
}

type cooldownEntry struct{ key, model string }

func (s *localCooldowns) Cool(_ context.Context, key, model string, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for e, until := range s.until { // forget the ended ones, so that the map stays small
		if !now.Before(until) {
			delete(s.until, e)
		}
	}
	if s.until == nil {
		s.until = map[cooldownEntry]time.Time{}
	}
	e := cooldownEntry{key, model}
	if until := now.Add(d); until.After(s.until[e]) {
		s.until[e] = until
	}
	return nil
}

func (s *localCooldowns) Cooling(_ context.Context, key string, models []string) ([]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	out := make([]bool, len(models))
	for i, m := range models {
		out[i] = now.Before(s.until[cooldownEntry{key, m}])
	}
	return out, nil
}
