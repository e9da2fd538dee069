package infergate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
)

// For random quotas and random calls (models of two groups and of none, estimates, starts, how long
// each is held, how it ends), NewLimiter never admits more than a quota in any window: requests,
// the estimates of the calls that succeeded, and calls in flight at once.
func TestLimiterNeverExceedsAQuota(t *testing.T) {
	t.Parallel()
	for seed := range uint64(100) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { checkRandomCalls(t, rand.New(rand.NewPCG(seed, 44))) })
		})
	}
}

func checkRandomCalls(t *testing.T, rng *rand.Rand) {
	randomQuota := func() infergate.Quota {
		return infergate.Quota{Requests: rng.IntN(5), Tokens: rng.IntN(4) * 10, Concurrent: rng.IntN(4),
			Window: time.Duration(1+rng.IntN(10)) * time.Second}
	}
	q := infergate.Quotas{
		Groups: []infergate.QuotaGroup{
			{Name: "a", Models: []string{"alpha*"}, Quota: randomQuota()},
			{Name: "b", Models: []string{"beta"}, Quota: randomQuota()},
		},
		Default: randomQuota(),
	}
	quotaOf := map[string]infergate.Quota{"alpha-1": q.Groups[0].Quota, "beta": q.Groups[1].Quota, "other": q.Default}
	groupOf := map[string]string{"alpha-1": "a", "beta": "b", "other": "default"}
	lim := infergate.NewLimiter(q)

	type window struct {
		group string
		start time.Time
	}
	var (
		mu       sync.Mutex
		requests = map[window]int{}
		tokens   = map[window]int{}
		inFlight = map[string]int{}
		wg       sync.WaitGroup
	)
	models := []string{"alpha-1", "beta", "other"}
	for range 30 {
		model := models[rng.IntN(len(models))]
		quota := quotaOf[model]
		estimate := 1 + rng.IntN(12)
		if quota.Tokens > 0 && estimate > quota.Tokens {
			estimate = quota.Tokens
		}
		start := time.Duration(rng.IntN(20_000)) * time.Millisecond
		hold := time.Duration(rng.IntN(3_000)) * time.Millisecond
		status := []int{200, 200, 500, 429}[rng.IntN(4)]
		wg.Go(func() {
			time.Sleep(start)
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			p, err := lim.Acquire(ctx, infergate.LimitRequest{Key: "key:k", Model: model, Route: "/chat/completions", Tokens: estimate})
			if err != nil {
				t.Errorf("Acquire: %v", err)
				return
			}
			now := time.Now()
			w := window{groupOf[model], time.Unix(0, now.UnixNano()/int64(quota.Window)*int64(quota.Window))} // aligned on the Unix epoch, not on Truncate's zero time
			mu.Lock()
			requests[w]++
			inFlight[w.group]++
			if quota.Concurrent > 0 && inFlight[w.group] > quota.Concurrent {
				t.Errorf("%d calls of group %s in flight, quota %d", inFlight[w.group], w.group, quota.Concurrent)
			}
			if quota.Requests > 0 && requests[w] > quota.Requests {
				t.Errorf("%d requests of group %s in the window at %v, quota %d", requests[w], w.group, w.start, quota.Requests)
			}
			mu.Unlock()
			time.Sleep(hold)
			mu.Lock()
			inFlight[w.group]--
			if status == 200 {
				tokens[w] += estimate
				if quota.Tokens > 0 && tokens[w] > quota.Tokens {
					t.Errorf("%d tokens of group %s in the window at %v, quota %d", tokens[w], w.group, w.start, quota.Tokens)
				}
			}
			mu.Unlock()
			p.Release(infergate.LimitReport{StatusCode: status})
		})
	}
	wg.Wait()
}
