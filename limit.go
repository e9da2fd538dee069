package infergate

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/infergate/infergate-go/internal/quota"
)

// Limiter admits calls within a quota that may be shared by many clients and processes. Every
// attempt of every route asks it first (a retry or a fallback asks again), and gives its Permit back
// with what the server said once the attempt has ended: for a stream, once it is read to the end,
// closed or its context ends. NewLimiter is one in process; the redisinfergate module shares one
// through Redis.
type Limiter interface {
	// Acquire waits until req may be sent and returns its permit, or returns an error (ctx's, when
	// it ends first); nothing is sent then.
	Acquire(ctx context.Context, req LimitRequest) (Permit, error)
}

// LimitRequest is what a Limiter is asked to admit: one attempt of a call.
type LimitRequest struct {
	// Key names the credential's quota without revealing it; it is the same in every process that
	// uses the same credential: "key:" and the first 16 hexadecimal digits of the SHA-256 of the
	// credential the attempt sends (the API key, or the access token on the routes that take it),
	// 64 bits, which tell a fleet's keys apart and reveal nothing of them. It is "" for a route sent
	// without a credential (the health check).
	Key string
	// Model is the model the attempt names, as sent; "" for a route without one.
	Model string
	// Route is the route's path, e.g. "/chat/completions".
	Route string
	// Tokens is the gateway's admission estimate of the attempt's input tokens, for the routes
	// it counts (chat completions, embeddings); 0 for the others.
	Tokens int
}

// Permit is a Limiter's admission of one attempt. Release is called exactly once, when the attempt
// has ended, with what the server said.
type Permit interface {
	Release(LimitReport)
}

// LimitReport is what the server said about an attempt, for the limiter to correct its counts.
type LimitReport struct {
	StatusCode int           // the HTTP status; 0 when no answer arrived
	RateLimits *RateLimits   // the X-RateLimit-* headers; nil when none were sent
	RetryAfter time.Duration // the Retry-After header; 0 when none was sent
	Usage      *Usage        // the tokens the answer used, when it said (a stream: when it said before it ended)
}

// Quota bounds the calls of one key to one group of models. A count of 0 means no bound; a negative
// count or window is refused (see Quotas.Validate).
type Quota struct {
	Requests int // requests per window
	// Tokens bounds the tokens per window as the gateway counts them: a request is admitted on the
	// estimate of its input (LimitRequest.Tokens), and once its answer reports what it used, that
	// count (prompt and completion) replaces the estimate.
	Tokens     int
	Concurrent int           // calls in flight at once
	Window     time.Duration // the window Requests and Tokens are counted in; 0 means one minute
}

// QuotaGroup is a quota shared by a group of models.
type QuotaGroup struct {
	Name string // the group's name, e.g. "L"
	// Models are the group's model names. A name ending in "*" is a prefix. As the gateway matches
	// them, letter case is ignored, and a name also matches a model whose name contains it or is
	// contained in it ("glm" matches "glm-5.1", and "glm-5.1" matches "glm-5.1:web").
	Models []string
	Quota  Quota // what each key may send to the group's models
}

// Quotas are the quotas of a key: one per group, and Default for models no group matches (and for
// routes that name no model).
type Quotas struct {
	Groups  []QuotaGroup // tried in order; the first group one of whose names matches wins
	Default Quota        // the quota of the models no group matches, and of the routes that name none
}

// Group returns the group whose quota applies to model, as the gateway picks it: the first group
// one of whose names matches. ok is false when none does: then Default applies.
func (q Quotas) Group(model string) (g QuotaGroup, ok bool) {
	if i := q.groupIndex(model); i >= 0 {
		return q.Groups[i], true
	}
	return QuotaGroup{}, false
}

// groupIndex is the index of model's group in q.Groups, -1 for none.
func (q Quotas) groupIndex(model string) int {
	m := strings.ToLower(model)
	for i, g := range q.Groups {
		for _, name := range g.Models {
			if quotaNameMatches(strings.ToLower(name), m) {
				return i
			}
		}
	}
	return -1
}

// Validate returns a *ValidationError when a count or window of q is negative.
func (q Quotas) Validate() error {
	check := func(where string, quota Quota) error {
		for _, f := range []struct {
			name string
			n    int64
		}{{"Requests", int64(quota.Requests)}, {"Tokens", int64(quota.Tokens)},
			{"Concurrent", int64(quota.Concurrent)}, {"Window", int64(quota.Window)}} {
			if f.n < 0 {
				return invalid("Quotas", "%s: %s must not be negative, got %d", where, f.name, f.n)
			}
		}
		return nil
	}
	if err := check("Default", q.Default); err != nil {
		return err
	}
	for i, g := range q.Groups {
		if err := check(sprintf("group %d (%q)", i, g.Name), g.Quota); err != nil {
			return err
		}
	}
	return nil
}

func quotaNameMatches(name, model string) bool {
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		return strings.HasPrefix(model, prefix)
	}
	return name == model || strings.Contains(name, model) || strings.Contains(model, name)
}

// GatewayQuotas returns the deployed gateway's quotas for one API key, as published in its rate-limit
// file (models/prod_rate_limit.json of the gateway's repository, read on 2026-07-23): group L 20
// requests and 500,000 tokens a minute, M 50 and 750,000, S 500 and 1,000,000, embedding 500
// requests, any other model 60 requests and 100,000 tokens, in fixed 60-second windows aligned on the
// Unix epoch. An account's rate-limit multiplier, which only the gateway's staff set, scales them.
func GatewayQuotas() Quotas {
	minute := func(requests, tokens int) Quota {
		return Quota{Requests: requests, Tokens: tokens, Window: time.Minute}
	}
	return Quotas{
		Groups: []QuotaGroup{
			{Name: "L", Quota: minute(20, 500_000), Models: []string{
				"glm-5.2", "glm-5.1", "glm-5.1-non-thinking", "glm-5", "glm-4.7", "glm-4.7-thinking",
				"glm-4.7-flash", "kimi-k2.7-code", "kimi-k2.6", "kimi-k2.5", "kimi-k2-thinking",
				"minimax-m2.7", "minimax-m2.5", "qwen3-coder-480b-a35b-instruct", "qwen3-235b",
				"arcee-trinity-large-thinking", "gemma-4-31b", "gemma-4-26b-a4b", "gpt-oss-120b",
				"hermes-3-llama-3.1-405b", "deepseek-v4-pro",
			}},
			{Name: "M", Quota: minute(50, 750_000), Models: []string{
				"llama-3.3-70b", "mistral-31-24b", "qwen3-next-80b", "qwen35-35b-a3b", "qwen35-9b",
				"venice-uncensored", "deepseek-v4-flash",
			}},
			{Name: "S", Quota: minute(500, 1_000_000), Models: []string{"llama-3.2-3b"}},
			{Name: "embedding", Quota: minute(500, 0), Models: []string{"text-embedding-bge-m3"}},
		},
		Default: minute(60, 100_000),
	}
}

// NewLimiter returns a limiter that holds the quotas q within this process, for every client given
// it (WithLimiter): requests and tokens counted in fixed windows aligned on the Unix epoch, as the
// gateway aligns them (a window starts at now / Window * Window), and calls in flight, per key and
// group. A call that finds no room waits for it, bounded by its context (and, for a call that is
// not a stream, by WithTimeout), rather than failing. Requests and Tokens count the routes the
// gateway limits (chat completions and embeddings); Concurrent counts every route, a stream until
// it ends, is closed or its context ends.
//
// What the server says corrects it: an answer announcing no requests or no tokens left
// (X-RateLimit-Remaining-Requests or -Tokens 0) holds the key's later calls to that group back
// until the window's reset, and a 429's Retry-After until then, at most one window. A model's
// token usage, when the answer reports it, replaces the estimate in the window, as the gateway
// records it. Processes that share a key need one limiter between them: see the redisinfergate
// module.
//
// A negative count or window is refused: NewClient given the limiter returns the *ValidationError,
// as does every Acquire.
func NewLimiter(q Quotas) Limiter {
	l := &localLimiter{quotas: q, err: q.Validate()}
	l.windows = make([]time.Duration, len(q.Groups)+1)
	for i := range l.windows {
		w := q.Default.Window
		if i < len(q.Groups) {
			w = q.Groups[i].Quota.Window
		}
		if w == 0 {
			w = time.Minute
		}
		l.windows[i] = w
	}
	return l
}

// localLimiter is NewLimiter's limiter.
type localLimiter struct {
	quotas  Quotas
	err     error
	windows []time.Duration // each group's window, then Default's
	groups  sync.Map        // model → its group's index (-1 for Default), looked up once
	counts  quota.Limiter
}

func (l *localLimiter) quotaErr() error { return l.err }

// Acquire waits until req may be sent.
func (l *localLimiter) Acquire(ctx context.Context, req LimitRequest) (Permit, error) {
	if l.err != nil {
		return nil, l.err
	}
	if req.Tokens < 0 {
		return nil, invalid("Tokens", "the request's admission estimate must not be negative, got %d", req.Tokens)
	}
	i := -1
	if req.Model != "" {
		if v, ok := l.groups.Load(req.Model); ok {
			i = v.(int)
		} else {
			i = l.quotas.groupIndex(req.Model)
			l.groups.Store(req.Model, i)
		}
	}
	q, window, name := l.quotas.Default, l.windows[len(l.windows)-1], "Default"
	if i >= 0 {
		q, window, name = l.quotas.Groups[i].Quota, l.windows[i], l.quotas.Groups[i].Name
	}
	p, err := l.counts.Acquire(ctx, quota.Request{Key: req.Key, Group: i, Tokens: req.Tokens,
		Counted: quota.CountedRoute(req.Route),
		Quota:   quota.Quota{Requests: q.Requests, Tokens: q.Tokens, Concurrent: q.Concurrent, Window: window}})
	if err != nil {
		var large *quota.TooLargeError
		if errors.As(err, &large) {
			return nil, invalid("Tokens", "the request's admission estimate, %d tokens, exceeds the %d a window of quota group %s: the gateway refuses it however long it waits",
				large.Tokens, large.Quota, name)
		}
		return nil, err
	}
	return localPermit{p}, nil
}

type localPermit struct{ p *quota.Permit }

func (p localPermit) Release(r LimitReport) {
	rep := quota.Report{Status: r.StatusCode, RetryAfter: r.RetryAfter, Used: -1}
	if r.Usage != nil {
		rep.Used = max(addCount(r.Usage.PromptTokens, r.Usage.CompletionTokens), r.Usage.TotalTokens)
	}
	if rl := r.RateLimits; rl != nil {
		if rl.RemainingRequests == 0 {
			rep.Exhausted, rep.Reset = true, later(rep.Reset, rl.ResetRequests)
		}
		if rl.RemainingTokens == 0 && rl.LimitTokens > 0 { // Remaining-Tokens is 0 too when nothing limits them
			rep.Exhausted, rep.Reset = true, later(rep.Reset, rl.ResetTokens)
		}
	}
	p.p.Release(rep)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// WithLimiter has every attempt of the client's calls admitted by l before it is sent (NewLimiter
// within the process; the redisinfergate module across processes): a retry, a stream sent again
// and a fallback are each admitted again, and each gives its permit back when it ends, a stream's
// when it is read to the end, closed or its context ends, with what the server said. A call whose
// context ends while it waits returns the context's error and sends nothing. It is an option of the
// client: given to one call, the call is refused with a *ValidationError. A nil l means none.
func WithLimiter(l Limiter) Option {
	return func(c *config) { c.limiter, c.limiterGiven = l, true }
}
