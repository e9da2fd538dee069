package infergate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// errToolTimeout is the cause of a call context that ToolLoop.ToolTimeout ended.
var errToolTimeout = errors.New("infergate: the tool call outlived ToolLoop.ToolTimeout")

// errGoexit is what a tool that called runtime.Goexit (t.FailNow in a test, say) is reported with.
var errGoexit = errors.New("it called runtime.Goexit")

// runCalls runs a turn's calls on at most Goroutines goroutines, reporting each as it finishes, and
// returns them in the order the model asked for them. It returns only when every call has.
func (r *ToolRun) runCalls(ctx context.Context, step int, calls []ToolCall, yield func(ToolEvent, error) bool) ([]ToolResult, error) {
	callCtx, cancel := context.WithCancel(ctx)
	p := &callPool{run: r, ctx: callCtx, calls: calls, results: make([]ToolResult, len(calls)), done: make(chan int, len(calls))}
	// Also when the range's body panics in yield: the calls are cancelled and waited for, so that
	// the loop ends only once its tools have.
	defer func() {
		cancel()
		p.workers.Wait()
	}()
	for range min(r.loop.Goroutines, len(calls)) {
		p.startWorker()
	}
	stopped := false
	for range calls {
		i := <-p.done
		if !stopped && !yield(ToolEvent{Kind: ToolEventResult, Step: step, Result: &p.results[i]}, nil) {
			stopped = true
			cancel()
		}
	}
	p.workers.Wait()
	switch {
	case stopped:
		return p.results, errStopped
	case ctx.Err() != nil:
		return p.results, context.Cause(ctx)
	}
	return p.results, nil
}

// callPool runs the calls of one turn: each worker takes the next call until none is left.
type callPool struct {
	run       *ToolRun
	ctx       context.Context
	calls     []ToolCall
	results   []ToolResult
	done      chan int // the index of each finished call
	next      atomic.Int64
	workers   sync.WaitGroup
	approving sync.Mutex // Approve is asked one call at a time
}

func (p *callPool) startWorker() {
	p.workers.Add(1)
	go p.work()
}

func (p *callPool) work() {
	defer p.workers.Done()
	for {
		i := int(p.next.Add(1) - 1)
		if i >= len(p.calls) {
			return
		}
		p.runOne(i)
	}
}

// runOne runs call i and reports it. A tool that calls runtime.Goexit ends this worker's goroutine
// (nothing can stop that): the call is then reported as crashed, and a new worker takes over.
func (p *callPool) runOne(i int) {
	call := p.calls[i]
	ctx, obs := startObservation(p.ctx, p.run.cfg.observers, Operation{Name: OperationExecuteTool, Tool: &call})
	start := time.Now()
	returned := false
	defer func() {
		if !returned {
			err := &ToolError{Tool: call.Function.Name, Stage: ToolStagePanic, Err: errGoexit}
			p.results[i] = ToolResult{Call: call, Output: err.Feedback(), Err: err, Duration: time.Since(start)}
			obs.end(&p.results[i], err)
			p.done <- i
			p.startWorker()
		}
	}()
	tr := ToolResult{Call: call}
	tr.Output, tr.Err = p.outcome(ctx, call)
	var te *ToolError
	if errors.As(tr.Err, &te) {
		tr.Output = te.Feedback()
	}
	tr.Duration = time.Since(start)
	p.results[i] = tr
	obs.end(&p.results[i], tr.Err)
	returned = true
	p.done <- i
}

// outcome runs one call; every failure is a *ToolError whose feedback the model reads.
func (p *callPool) outcome(ctx context.Context, call ToolCall) (string, error) {
	name, loop := call.Function.Name, p.run.loop
	if ctx.Err() != nil {
		return "", &ToolError{Tool: name, Stage: ToolStageRun, Err: context.Cause(ctx)}
	}
	tool := p.run.tools[name]
	if tool == nil {
		return "", &ToolError{Tool: name, Stage: ToolStageNotFound, Available: p.run.names}
	}
	// ToolTimeout bounds checking the arguments and running the function, together; not the wait
	// for Approve.
	start := time.Now()
	args, err := withinTimeout(ctx, name, loop.ToolTimeout, loop.ToolTimeout, func(ctx context.Context) ([]byte, error) {
		return tool.check(ctx, call.Function.Arguments)
	})
	if err != nil {
		return "", err
	}
	spent := time.Since(start)
	if err := p.approve(ctx, call); err != nil {
		return "", &ToolError{Tool: name, Stage: ToolStageRefused, Err: err}
	}
	return withinTimeout(ctx, name, loop.ToolTimeout, loop.ToolTimeout-spent, func(ctx context.Context) (string, error) {
		return tool.invoke(ctx, args)
	})
}

// withinTimeout runs fn with a context that ends after left when the loop has a ToolTimeout (limit); a
// call it cut short fails with stage ToolStageTimeout.
func withinTimeout[T any](ctx context.Context, name string, limit, left time.Duration, fn func(context.Context) (T, error)) (T, error) {
	if limit <= 0 {
		return fn(ctx)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, left, errToolTimeout)
	defer cancel()
	out, err := fn(ctx)
	if context.Cause(ctx) == errToolTimeout {
		var zero T
		return zero, &ToolError{Tool: name, Stage: ToolStageTimeout,
			Err:      fmt.Errorf("no result within %s: %w", limit, context.DeadlineExceeded),
			feedback: fmt.Sprintf("it did not finish within %s.", limit)}
	}
	return out, err
}

// approve asks ToolLoop.Approve about a call; a panic in it refuses the call.
func (p *callPool) approve(ctx context.Context, call ToolCall) (err error) {
	approve := p.run.loop.Approve
	if approve == nil {
		return nil
	}
	p.approving.Lock()
	defer p.approving.Unlock()
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the approval of %s failed: %v", call.Function.Name, v)
		}
	}()
	return approve(ctx, call)
}
