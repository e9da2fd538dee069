package infergate

import (
	"context"
	"sync/atomic"
)

// place is a call's hold on one of the client's places for calls in flight (WithMaxConcurrency).
// The call defers giveBack, so that the place comes back however the call ends, a panic in a
// middleware or an observer included; a call whose answer is read after it returns (a stream, audio)
// hands the place to that answer instead, with handTo. A nil *place, without a bound, holds nothing.
type place struct {
	slots  chan struct{}
	left   atomic.Bool // given back; the answer's end and its context's may race to do it
	handed bool        // an answer read after the call returned holds it now
}

// takePlace waits for one of the client's places, or returns ctx's error when it ends first;
// nothing is sent then. Without a bound it returns a nil *place at once.
func (c *config) takePlace(ctx context.Context) (*place, error) {
	if c.slots == nil {
		return nil, nil
	}
	select {
	case c.slots <- struct{}{}:
		return &place{slots: c.slots}, nil
	default:
	}
	select {
	case c.slots <- struct{}{}:
		return &place{slots: c.slots}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// giveBack ends the call's hold on the place, unless an answer now holds it.
func (p *place) giveBack() {
	if p != nil && !p.handed {
		p.leave()
	}
}

func (p *place) leave() {
	if p.left.CompareAndSwap(false, true) {
		<-p.slots
	}
}

// handTo hands the place to an answer that is read after the call returns and that release ends:
// the place comes back when release runs, or as soon as ctx, the answer's context, ends, since
// nothing more can be read then, so that an answer dropped without Close does not keep it.
func (p *place) handTo(ctx context.Context, release *func()) {
	if p == nil {
		return
	}
	p.handed = true
	if ctx.Err() != nil { // the answer has ended already
		p.leave()
		return
	}
	stop := context.AfterFunc(ctx, p.leave)
	end := *release
	*release = func() {
		stop() // release ends ctx: leaving here spares AfterFunc its goroutine
		end()
		p.leave()
	}
}
