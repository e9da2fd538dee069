package batch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go/batch"
)

// TestOneResultPerRequest runs random inputs against a fake that fails random requests (400s,
// 503s, 429s), cuts runs short at random times and tears the output at random places between runs,
// as a crash would, then runs until done with RetryFailed. After every run each custom_id has at
// most one line; at the end exactly one, a success; and every send of a request carried the same
// Idempotency-Key.
func TestOneResultPerRequest(t *testing.T) {
	t.Parallel()
	for seed := range uint64(25) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { oneResultPerRequest(t, seed) })
		})
	}
}

func oneResultPerRequest(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 46))
	n := 1 + r.IntN(60)
	names := make([]string, n)
	lines := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("id-%d-%d", i, r.IntN(1000))
		if r.IntN(3) == 0 {
			lines[i] = embedLine(names[i], names[i])
		} else {
			lines[i] = chatLine(names[i], names[i])
		}
	}
	shard := batch.Shard{}
	if r.IntN(3) == 0 {
		shard = batch.Shard{Index: r.IntN(3), Count: 3}
	}
	var mu sync.Mutex // the fake draws from r for requests served at once
	intN := func(n int) int {
		mu.Lock()
		defer mu.Unlock()
		return r.IntN(n)
	}
	statuses := []int{http.StatusOK, http.StatusOK, http.StatusOK, http.StatusBadRequest, http.StatusServiceUnavailable, http.StatusTooManyRequests}
	f := &fake{
		delay: func(string, int) time.Duration { return time.Duration(intN(3000)) * time.Millisecond },
		decide: func(text string, attempt int) (int, http.Header) {
			if attempt > 6 { // a request fails a few times at most, so that the runs end
				return http.StatusOK, nil
			}
			return statuses[intN(len(statuses))], nil
		},
	}
	in, out := files(t, lines...)
	client := inMemory(t, f)
	for run := 0; ; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		// Six runs of chance, then runs with RetryFailed until none fails (a request fails six
		// times at most).
		last := run >= 6
		if !last && r.IntN(2) == 0 {
			time.AfterFunc(time.Duration(r.IntN(5000))*time.Millisecond, cancel)
		}
		sum, err := batch.Run(ctx, client, batch.Job{Input: in, Output: out, Shard: shard, Concurrency: 1 + r.IntN(5),
			RetryFailed: last || r.IntN(2) == 0, Grace: time.Duration(r.IntN(2000)) * time.Millisecond})
		cancel()
		if err != nil && !sum.Interrupted {
			t.Fatalf("run %d: %v", run, err)
		}
		got := byID(t, results(t, out))
		if last && sum.Failed > 0 && run < 20 {
			continue
		}
		if last {
			total := 0
			for _, id := range names {
				if shard.Contains(id) {
					total++
					if r, ok := got[id]; !ok || !r.Succeeded() {
						t.Errorf("%s: %+v at the end", id, r)
					}
				} else if _, ok := got[id]; ok {
					t.Errorf("%s, of another shard, has a result", id)
				}
			}
			if sum.Total != total || sum.Succeeded != total || len(got) != total {
				t.Errorf("summary %+v, %d results, %d in the shard", sum.Progress, len(got), total)
			}
			break
		}
		if err == nil && sum.Succeeded+sum.Failed != sum.Total {
			t.Errorf("run %d ended with %+v", run, sum.Progress)
		}
		// A crash tears the output: cut it anywhere.
		if b, _ := os.ReadFile(out); len(b) > 0 && intN(2) == 0 {
			os.WriteFile(out, b[:intN(len(b))], 0o644)
		}
	}
	keys := map[string]string{}
	for _, s := range f.requests() {
		if k, ok := keys[s.text]; ok && k != s.key {
			t.Errorf("%s sent with %s and %s", s.text, k, s.key)
		}
		keys[s.text] = s.key
	}
}
