package infergate

import (
	"context"
	"strings"
	"time"
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
	// uses the same credential.
	Key string
	// Model is the model the attempt names, as sent; "" for a route without one.
	Model string
	// Route is the route's path, e.g. "/chat/completions".
	Route string
	// Tokens is the gateway's admission estimate of the attempt's input tokens.
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
	RetryAfter time.Duration // a 429's Retry-After; 0 when not sent
	Usage      *Usage        // the tokens the answer used, when it said
}

// Quota bounds the calls of one key to one group of models. A count of 0 means no bound.
type Quota struct {
	Requests   int           // requests per window
	Tokens     int           // input tokens per window, as the gateway estimates them at admission
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
	Quota  Quota // the quota the group's models share
}

// Quotas are the quotas of a key: one per group, and Default for models no group matches.
type Quotas struct {
	Groups  []QuotaGroup // tried in order; the first group one of whose names matches wins
	Default Quota        // the quota of the models no group matches
}

// Group returns the group whose quota applies to model, as the gateway picks it: the first group
// one of whose names matches. ok is false when none does: then Default applies.
func (q Quotas) Group(model string) (g QuotaGroup, ok bool) {
	m := strings.ToLower(model)
	for _, g := range q.Groups {
		for _, name := range g.Models {
			if quotaNameMatches(strings.ToLower(name), m) {
				return g, true
			}
		}
	}
	return QuotaGroup{}, false
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
