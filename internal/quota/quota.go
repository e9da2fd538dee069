package quota

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Quota bounds one key's calls to one group. A count of 0 means no bound; Window is positive.
type Quota struct {
	Requests, Tokens, Concurrent int
	Window                       time.Duration
}

// Request is one attempt to admit.
type Request struct {
	Key    string
	Group  int // the group's index; -1 for the default quota
	Quota  Quota
	Tokens int // the admission estimate of the attempt's input
	// Counted says the route is one the gateway counts: requests and tokens are counted then;
	// every route counts as a call in flight.
	Counted bool
}

// CountedRoute reports whether the gateway counts a route's requests and tokens: only chat
// completions and embeddings go through its limiter.
func CountedRoute(path string) bool { return path == "/chat/completions" || path == "/embeddings" }

// Report is what the server said about an attempt once it ended.
type Report struct {
	Status int
	// Exhausted says the server announced nothing left in its window (a remaining count of 0);
	// Reset is when its window resets, the zero time when it did not say.
	Exhausted bool
	Reset     time.Time
	// RetryAfter is a 429's Retry-After; 0 when none.
	RetryAfter time.Duration
	// Used is the tokens the answer used (prompt and completion), which the gateway records in
	// place of the estimate; -1 when unknown.
	Used int
}

// Limiter counts the calls of every key and group. The zero value is ready to use.
type Limiter struct {
	buckets sync.Map // bucketKey → *bucket
}

type bucketKey struct {
	key   string
	group int
}

// bucket is one key's count in one group.
type bucket struct {
	mu        sync.Mutex
	start     time.Time // the current window's start
	requests  int
	tokens    int // estimates of the calls admitted in the window, less those that failed, plus usage recorded
	inFlight  int
	heldUntil time.Time // the server said no more until then
	waiting   int
	changed   chan struct{} // closed when a call ends while others wait, then replaced
}

// TooLargeError is an attempt whose estimate alone exceeds its group's token quota: the gateway
// refuses it however long it waits.
type TooLargeError struct{ Tokens, Quota int }

func (e *TooLargeError) Error() string { return "estimate exceeds the token quota" }

// Acquire waits until r may be sent, or returns ctx's error when it ends first.
func (l *Limiter) Acquire(ctx context.Context, r Request) (*Permit, error) {
	q := r.Quota
	if r.Counted && q.Tokens > 0 && r.Tokens > q.Tokens {
		return nil, &TooLargeError{Tokens: r.Tokens, Quota: q.Tokens}
	}
	b := l.bucket(bucketKey{r.Key, r.Group})
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		b.mu.Lock()
		now := time.Now()
		b.roll(now, q.Window)
		wake, ok := b.admit(now, &r)
		if ok {
			p := &Permit{b: b, window: q.Window, start: b.start, counted: r.Counted, tokens: r.Tokens}
			b.mu.Unlock()
			return p, nil
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.waiting++
		b.mu.Unlock()
		var fired <-chan time.Time
		if !wake.IsZero() {
			if timer == nil {
				timer = time.NewTimer(wake.Sub(now))
			} else {
				timer.Reset(wake.Sub(now))
			}
			fired = timer.C
		}
		var err error
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-fired:
		case <-changed:
		}
		b.mu.Lock()
		b.waiting--
		b.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
}

func (l *Limiter) bucket(k bucketKey) *bucket {
	if b, ok := l.buckets.Load(k); ok {
		return b.(*bucket)
	}
	b, _ := l.buckets.LoadOrStore(k, &bucket{})
	return b.(*bucket)
}

// roll moves the bucket to the window now falls in.
func (b *bucket) roll(now time.Time, window time.Duration) {
	if now.Before(b.start.Add(window)) {
		return
	}
	b.start = WindowAt(now, window).Start
	b.requests, b.tokens = 0, 0
}

// admit counts r in when there is room, or returns when to look again (the zero time: when a call
// ends).
func (b *bucket) admit(now time.Time, r *Request) (wake time.Time, ok bool) {
	q := &r.Quota
	if r.Counted && now.Before(b.heldUntil) {
		return b.heldUntil, false
	}
	if q.Concurrent > 0 && b.inFlight >= q.Concurrent {
		return time.Time{}, false
	}
	if r.Counted {
		full := q.Requests > 0 && b.requests+1 > q.Requests ||
			q.Tokens > 0 && r.Tokens > 0 && r.Tokens > q.Tokens-b.tokens
		if full {
			return b.start.Add(q.Window), false
		}
		b.requests++
		b.tokens += r.Tokens
	}
	b.inFlight++
	return time.Time{}, true
}

// Permit is one admitted attempt.
type Permit struct {
	b       *bucket
	window  time.Duration
	start   time.Time // the window it was counted in
	counted bool
	tokens  int
	done    atomic.Bool
}

// Release ends the attempt; only the first call counts.
func (p *Permit) Release(rep Report) {
	if !p.done.CompareAndSwap(false, true) {
		return
	}
	b := p.b
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.roll(now, p.window)
	b.inFlight--
	if p.counted {
		ok := rep.Status >= 200 && rep.Status <= 299
		if (rep.Used >= 0 || !ok) && b.start.Equal(p.start) {
			b.tokens -= p.tokens // the gateway records the usage, or nothing for a failed call
		}
		if rep.Used > 0 { // a count a server sends saturates rather than wraps around
			b.tokens += min(rep.Used, math.MaxInt-b.tokens)
		}
		if rep.Exhausted {
			until := rep.Reset
			if until.IsZero() {
				until = b.start.Add(p.window)
			}
			b.hold(now, until, p.window)
		}
		if rep.Status == 429 && rep.RetryAfter > 0 {
			b.hold(now, now.Add(rep.RetryAfter), p.window)
		}
	}
	if b.waiting > 0 && b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// hold keeps the bucket's counted calls back until until, at most one window from now: the
// gateway's windows are that long, and a server's odd answer must not stop calls for longer.
func (b *bucket) hold(now, until time.Time, window time.Duration) {
	if limit := now.Add(window); until.After(limit) {
		until = limit
	}
	if until.After(b.heldUntil) {
		b.heldUntil = until
	}
}
