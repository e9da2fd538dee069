// Package fanout runs numbered tasks on a few goroutines and stops them at the first failure: the
// parts of one call the SDK sends in parallel. No goroutine it starts outlives Run.
package fanout

import (
	"context"
	"sync"
)

// Run calls do(ctx, i) for every i from 0 to n-1 (none when n is not positive), in order, on at
// most workers goroutines at once (at least one, and never more than n). The first task to fail
// cancels the context the others run with, and no task starts after it. Run returns once every task
// it started has returned, with the index of the first task that failed and its error, or -1 and
// nil when all succeeded. When ctx ends before every task has started, and no task fails, the first
// task not started is the one that failed, with ctx's error. A panic in a task cancels the others
// the same way and is raised again in Run's goroutine once they have returned.
func Run(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) (failed int, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		next     int
		panicked bool
		reason   any
		wg       sync.WaitGroup
	)
	failed = -1
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case failed >= 0 || panicked || next >= n:
			return 0, false
		case ctx.Err() != nil:
			failed, err = next, ctx.Err()
			return 0, false
		}
		next++
		return next - 1, true
	}
	fail := func(i int, e error) {
		mu.Lock()
		if failed < 0 && !panicked {
			failed, err = i, e
		}
		mu.Unlock()
		cancel()
	}
	work := func() {
		defer wg.Done()
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				if !panicked {
					panicked, reason = true, r
				}
				mu.Unlock()
				cancel()
			}
		}()
		for {
			i, ok := take()
			if !ok {
				return
			}
			if e := do(ctx, i); e != nil {
				fail(i, e)
				return
			}
		}
	}
	workers = max(min(workers, n), 1)
	wg.Add(workers)
	for range workers {
		go work()
	}
	wg.Wait()
	if panicked {
		panic(reason)
	}
	return failed, err
}
