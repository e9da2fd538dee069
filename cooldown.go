package infergate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

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
