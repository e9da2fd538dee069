package fanout

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}

// TestRunsEveryTaskOnceWithinTheBound: whatever the counts, every task runs exactly once and no
// more than workers run at once.
func TestRunsEveryTaskOnceWithinTheBound(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n, workers := r.IntN(40), r.IntN(6)-1
		runs := make([]atomic.Int32, n)
		var inFlight, most atomic.Int32
		failed, err := Run(t.Context(), n, workers, func(_ context.Context, i int) error {
			now := inFlight.Add(1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			runs[i].Add(1)
			inFlight.Add(-1)
			return nil
		})
		if failed != -1 || err != nil {
			t.Fatalf("n=%d workers=%d: Run = %d, %v", n, workers, failed, err)
		}
		for i := range runs {
			if got := runs[i].Load(); got != 1 {
				t.Fatalf("n=%d workers=%d: task %d ran %d times", n, workers, i, got)
			}
		}
		if bound := max(workers, 1); int(most.Load()) > bound {
			t.Fatalf("n=%d workers=%d: %d tasks at once", n, workers, most.Load())
		}
	}
}

// TestFirstFailureCancelsTheOthers: the tasks in flight see their context end, none starts after
// the failure, and the failure returned is the task's own, not the cancellations it caused.
func TestFirstFailureCancelsTheOthers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		var (
			mu      sync.Mutex
			started []int
			ended   = make(chan int, 3)
		)
		failed, err := Run(t.Context(), 10, 3, func(ctx context.Context, i int) error {
			mu.Lock()
			started = append(started, i)
			mu.Unlock()
			if i == 2 {
				synctest.Wait() // tasks 0 and 1 are waiting on their context
				return boom
			}
			<-ctx.Done()
			ended <- i
			return ctx.Err()
		})
		if failed != 2 || err != boom {
			t.Fatalf("Run = %d, %v; want 2, boom", failed, err)
		}
		if len(started) != 3 {
			t.Errorf("tasks started: %v; want only the first three", started)
		}
		if len(ended) != 2 {
			t.Errorf("%d tasks saw their context end, want 2", len(ended))
		}
	})
}

func TestEndedContextStartsNothingMore(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	var ran atomic.Int32
	failed, err := Run(ctx, 5, 1, func(context.Context, int) error {
		if ran.Add(1) == 2 {
			cancel()
		}
		return nil
	})
	if failed != 2 || !errors.Is(err, context.Canceled) || ran.Load() != 2 {
		t.Fatalf("Run = %d, %v after %d tasks; want 2, context.Canceled after 2", failed, err, ran.Load())
	}
	failed, err = Run(ctx, 5, 4, func(context.Context, int) error {
		t.Error("a task ran on an ended context")
		return nil
	})
	if failed != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %d, %v on an ended context; want 0, context.Canceled", failed, err)
	}
}

func TestPanicIsRaisedInTheCaller(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var cancelled atomic.Bool
		defer func() {
			if r := recover(); r != "broken" {
				t.Errorf("recovered %v, want the task's panic", r)
			}
			if !cancelled.Load() {
				t.Error("the other task was not cancelled")
			}
		}()
		Run(t.Context(), 2, 2, func(ctx context.Context, i int) error {
			if i == 1 {
				synctest.Wait()
				panic("broken")
			}
			<-ctx.Done()
			cancelled.Store(true)
			return nil
		})
		t.Error("Run returned")
	})
}

// TestNoTasksRunsNothing: a count of no tasks, or a negative one, runs none.
func TestNoTasksRunsNothing(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, -1, -100} {
		var runs atomic.Int32
		failed, err := Run(t.Context(), n, 3, func(context.Context, int) error {
			runs.Add(1)
			return errors.New("a task of none")
		})
		if failed != -1 || err != nil || runs.Load() != 0 {
			t.Errorf("Run(n=%d) = %d, %v after %d tasks; want -1, nil after none", n, failed, err, runs.Load())
		}
	}
}
