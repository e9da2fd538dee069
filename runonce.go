package infergate

import (
	"errors"
	"sync"
)

// runOnce is the one run of an ObjectStream or a ToolRun, which callers may watch by ranging over
// its iterator, await with Wait, or both at once from different goroutines: whoever comes first
// runs it; a Wait that comes later waits for the run to end, and an iterator that comes later
// yields nothing. The run's result is set before its end is announced, so a Wait that returns
// sees it whole.
type runOnce struct {
	mu      sync.Mutex
	started bool
	done    chan struct{} // closed once the run has ended
}

// errRangePanicked ends a run whose loop body panicked, for a Wait waiting on another goroutine.
var errRangePanicked = errors.New("infergate: the loop ranging over the run panicked")

// channel returns done, made on first use so that the zero runOnce works.
func (o *runOnce) channel() chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done == nil {
		o.done = make(chan struct{})
	}
	return o.done
}

// claim reports whether the caller comes first and so runs it; it must then call end.
func (o *runOnce) claim() bool {
	o.channel()
	o.mu.Lock()
	defer o.mu.Unlock()
	first := !o.started
	o.started = true
	return first
}

// end announces that the run has ended; its result must be set.
func (o *runOnce) end() { close(o.channel()) }

// wait returns once the run has ended.
func (o *runOnce) wait() { <-o.channel() }
