package batch_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go/batch"
)

// TestRateLimitPausesTheWholeRun answers one request with a 429 asking to wait 7 s: no request of
// the run starts during those 7 s, the limited one is sent again after them, and its result is its
// answer then, not the 429.
func TestRateLimitPausesTheWholeRun(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		f := &fake{delay: func(string, int) time.Duration { return time.Second }, // sends spread in time
			decide: func(text string, attempt int) (int, http.Header) {
				if text == "q05" && attempt == 1 {
					return http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}}
				}
				return http.StatusOK, nil
			}}
		in, out := files(t, chatLines(ids(20))...)
		var mu sync.Mutex
		var pauses []time.Time
		sum, err := batch.Run(context.Background(), inMemory(t, f), batch.Job{Input: in, Output: out, Concurrency: 3,
			Progress: func(p batch.Progress) {
				mu.Lock()
				defer mu.Unlock()
				if !p.PausedUntil.IsZero() && (len(pauses) == 0 || !pauses[len(pauses)-1].Equal(p.PausedUntil)) {
					pauses = append(pauses, p.PausedUntil)
				}
			}})
		if err != nil || sum.Failed != 0 || sum.Succeeded != 20 || sum.Sent != 20 {
			t.Fatalf("%+v, %v", sum, err)
		}
		var limitedAt time.Time
		for _, s := range f.requests() {
			if s.text == "q05" {
				limitedAt = s.at.Add(time.Second) // when its 429 came
				break
			}
		}
		resumeAt := limitedAt.Add(7 * time.Second)
		for _, s := range f.requests() {
			if s.at.After(limitedAt) && s.at.Before(resumeAt) {
				t.Errorf("%s sent at +%v, during the pause of 7 s after the 429", s.text, s.at.Sub(limitedAt))
			}
		}
		if tries := f.tries["q05"]; tries != 2 {
			t.Errorf("q05 sent %d times", tries)
		}
		if len(pauses) != 1 || !pauses[0].Equal(resumeAt) {
			t.Errorf("progress showed pauses until %v, want %v", pauses, resumeAt)
		}
	})
}

// TestRateLimitBecomesTheResultAfterMaxPauses answers one request with 429s only: it pauses the run
// MaxRateLimitPauses times, then its 429 is its result.
func TestRateLimitBecomesTheResultAfterMaxPauses(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		f := &fake{decide: func(text string, attempt int) (int, http.Header) {
			if text == "q01" {
				return http.StatusTooManyRequests, nil // no Retry-After: a second's pause
			}
			return http.StatusOK, nil
		}}
		in, out := files(t, chatLines(ids(3))...)
		start := time.Now()
		sum, err := batch.Run(context.Background(), inMemory(t, f), batch.Job{Input: in, Output: out})
		if err != nil || sum.Failed != 1 || sum.Succeeded != 2 {
			t.Fatalf("%+v, %v", sum, err)
		}
		if tries := f.tries["q01"]; tries != batch.MaxRateLimitPauses+1 {
			t.Errorf("sent %d times, want %d", tries, batch.MaxRateLimitPauses+1)
		}
		if waited := time.Since(start); waited != batch.MaxRateLimitPauses*time.Second {
			t.Errorf("waited %v", waited)
		}
		if r := byID(t, results(t, out))["q01"]; r.Response == nil || r.Response.StatusCode != 429 {
			t.Errorf("result %+v", r)
		}
	})
}

// TestCancelLetsInFlightFinishWithinGrace ends the run's context while requests are in flight:
// those that finish within the grace period get their result, those that do not get none, the run
// returns at the end of the grace period, and a second run completes the output with one result per
// request.
func TestCancelLetsInFlightFinishWithinGrace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		slow := map[string]bool{"q02": true, "q07": true}
		f := &fake{delay: func(text string, attempt int) time.Duration {
			if slow[text] && attempt == 1 {
				return time.Minute
			}
			return 2 * time.Second
		}}
		names := ids(30)
		in, out := files(t, chatLines(names)...)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		start := time.Now()
		sum, err := batch.Run(ctx, inMemory(t, f), batch.Job{Input: in, Output: out, Concurrency: 4, Grace: 5 * time.Second})
		if !errors.Is(err, context.DeadlineExceeded) || !sum.Interrupted {
			t.Fatalf("%+v, %v", sum, err)
		}
		if took := time.Since(start); took != 8*time.Second {
			t.Errorf("returned after %v, want the 3 s before the end and the 5 s of grace", took)
		}
		first := byID(t, results(t, out))
		for id := range slow {
			if _, ok := first[id]; ok {
				t.Errorf("%s, cut off by the grace's end, has a result", id)
			}
		}
		// q00 to q03 were sent at 0 s, q04 to q06 at 2 s, when three of them ended; nothing after
		// 3 s. All but q02 finished by 4 s.
		if len(first) != 6 || sum.Succeeded != 6 || sum.Sent != 7 {
			t.Errorf("%d results, summary %+v", len(first), sum.Progress)
		}

		sum, err = batch.Run(context.Background(), inMemory(t, f), batch.Job{Input: in, Output: out, Concurrency: 4})
		if err != nil || sum.Succeeded != 30 || sum.Resumed != len(first) {
			t.Fatalf("resumed: %+v, %v", sum, err)
		}
		if got := byID(t, results(t, out)); len(got) != 30 {
			t.Errorf("%d results for 30 requests", len(got))
		}
		_ = os.Remove(out)
	})
}

// TestProgressWhileInFlight has one request take ten seconds: Progress is called every second
// meanwhile, with it in flight, and once more with its result.
func TestProgressWhileInFlight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		f := &fake{delay: func(string, int) time.Duration { return 10 * time.Second }}
		in, out := files(t, chatLines(ids(1))...)
		var seen []batch.Progress
		_, err := batch.Run(context.Background(), inMemory(t, f), batch.Job{Input: in, Output: out,
			Progress: func(p batch.Progress) { seen = append(seen, p) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) < 10 {
			t.Fatalf("%d calls of Progress in 10 s", len(seen))
		}
		for i, p := range seen[:9] {
			if p.InFlight != 1 || p.Elapsed != time.Duration(i+1)*time.Second {
				t.Errorf("call %d: %+v", i, p)
			}
		}
		if last := seen[len(seen)-1]; last.Succeeded != 1 || last.InFlight != 0 {
			t.Errorf("last call: %+v", last)
		}
	})
}
