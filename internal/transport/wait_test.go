package transport

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// Wait waits the backoff of the attempt (jittered over its upper half), not past the context.
func TestPolicyWait(t *testing.T) {
	t.Parallel()
	p := Policy{BaseWait: time.Second, MaxWait: 8 * time.Second}
	synctest.Test(t, func(t *testing.T) {
		for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 8 * time.Second} {
			start := time.Now()
			if err := p.Wait(context.Background(), attempt); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d < want/2 || d > want {
				t.Errorf("attempt %d waited %v; want between %v and %v", attempt, d, want/2, want)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		if err := p.Wait(ctx, 1); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 0 {
			t.Errorf("a wait past the deadline: %v after %v; want DeadlineExceeded at once", err, time.Since(start))
		}
		ctx, cancel = context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		if err := p.Wait(ctx, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled wait: %v; want context.Canceled", err)
		}
	})
}
