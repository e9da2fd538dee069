package redisquota

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"sync"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// releaseTimeout bounds a release's round trip: Release has no context, and a call that has ended
// must not wait long on a Redis that does not answer.
const releaseTimeout = 5 * time.Second

// maxHold bounds how long one answer can hold every process back, whatever its headers say.
const maxHold = time.Hour

// permit is an admitted call's place: its lease, renewed while it is held, and what Release
// corrects.
type permit struct {
	l        *Limiter
	keys     quotaKeys
	window   time.Duration
	start    int64 // the admission's window start, Redis time in ms
	estimate int   // the tokens counted at admission
	counted  bool  // whether the gateway counts the route's requests and tokens
	tokens   bool  // whether the quota counts tokens
	lease    string

	mu       sync.Mutex
	released bool
	renewal  *time.Timer
	renewing sync.WaitGroup
}

// renewWhileHeld renews the permit's lease every third of the lease time until it is released.
func (p *permit) renewWhileHeld() {
	if p.lease == "" {
		return
	}
	p.mu.Lock()
	p.renewal = time.AfterFunc(p.renewEvery(), p.renew)
	p.mu.Unlock()
}

func (p *permit) renewEvery() time.Duration { return max(p.l.settings.Lease/3, time.Millisecond) }

func (p *permit) renew() {
	p.mu.Lock()
	if p.released {
		p.mu.Unlock()
		return
	}
	p.renewing.Add(1)
	p.mu.Unlock()
	defer p.renewing.Done()

	ctx, cancel := context.WithTimeout(context.Background(), p.renewEvery())
	reply, err := p.l.conn.Run(ctx, renewScript, []string{p.keys.leases}, p.lease, p.l.settings.Lease.Milliseconds())
	cancel()
	again := true
	switch {
	case errors.Is(err, ErrClosed):
		again = false // the client is closed: nothing will renew it any more
	case err != nil:
		p.l.settings.Logger.Warn(p.l.settings.Name+": a lease could not be renewed", slog.Any("error", classify(err)))
	default:
		held, err := parseFlag(reply)
		if err != nil {
			p.l.settings.Logger.Warn(p.l.settings.Name+": a lease could not be renewed", slog.Any("error", err))
		} else if !held {
			p.l.settings.Logger.Warn(p.l.settings.Name + ": a lease expired before it was renewed; its call goes on without its place")
			again = false
		}
	}
	p.mu.Lock()
	if again && !p.released {
		p.renewal.Reset(p.renewEvery())
	}
	p.mu.Unlock()
}

// dropLease removes the lease of an admission whose reply was lost when ctx ended, so that its
// place does not stay taken until the lease expires.
func (p *permit) dropLease(ctx context.Context) {
	if p.lease == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if _, err := p.l.conn.Do(ctx, "ZREM", p.keys.leases, p.lease); err != nil {
		p.l.settings.Logger.Warn(p.l.settings.Name+": the lease of a call whose context ended could not be removed; it expires",
			slog.Any("error", classify(err)))
	}
}

// Release gives the lease back and corrects the counts with what the server said: the tokens the
// answer used, and a hold on every later call until the server's reset or its Retry-After.
func (p *permit) Release(r infergate.LimitReport) {
	p.mu.Lock()
	if p.released {
		p.mu.Unlock()
		return
	}
	p.released = true
	if p.renewal != nil {
		p.renewal.Stop()
	}
	p.mu.Unlock()
	p.renewing.Wait() // a renewal under way must not outlive the release

	used := int64(-1)
	if u := r.Usage; u != nil && p.tokens {
		used = int64(u.TotalTokens)
		if used <= 0 { // the sum saturates: a server's huge counts must not wrap around to none
			prompt, completion := int64(max(u.PromptTokens, 0)), int64(max(u.CompletionTokens, 0))
			used = prompt + min(completion, math.MaxInt64-prompt)
		}
		used = max(used, 0)
	}
	var hold time.Duration
	if p.counted { // a route the gateway does not count says nothing of the quota
		hold = holdFor(r, p.l.now())
	}
	if p.lease == "" && used < 0 && hold <= 0 || !p.l.mayAsk(false) {
		return // nothing to say, or Redis cannot be reached: the lease expires there
	}
	holdMS := int64(0)
	if hold > 0 {
		holdMS = max(hold.Milliseconds(), 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	reply, err := p.l.conn.Run(ctx, releaseScript, p.keys.list(), p.lease, p.start, p.window.Milliseconds(),
		p.estimate, used, holdMS)
	if err == nil {
		_, err = parseFlag(reply)
	}
	if err != nil {
		err = classify(err)
		if errors.Is(err, ErrUnreachable) {
			p.l.failed(err)
			return
		}
		p.l.settings.Logger.Warn(p.l.settings.Name+": a release failed", slog.Any("error", err))
	}
}

// holdFor is how long the server asked every later call to wait, from now: a 429's Retry-After, or
// the reset of a window it said is used up. Another status's Retry-After (a provider's 503) speaks
// of one model's providers, not of the key's quota. Reset times are the server's clock, read
// against ours.
func holdFor(r infergate.LimitReport, now time.Time) time.Duration {
	var hold time.Duration
	if r.StatusCode == 429 {
		hold = r.RetryAfter
	}
	if rl := r.RateLimits; rl != nil {
		if rl.LimitRequests > 0 && rl.RemainingRequests <= 0 && !rl.ResetRequests.IsZero() {
			hold = max(hold, rl.ResetRequests.Sub(now))
		}
		if rl.LimitTokens > 0 && rl.RemainingTokens <= 0 && !rl.ResetTokens.IsZero() {
			hold = max(hold, rl.ResetTokens.Sub(now))
		}
	}
	return min(hold, maxHold)
}
