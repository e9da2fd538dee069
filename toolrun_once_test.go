package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go"
)

// objectServer streams pancakesJSON as text, in pieces of three bytes, each write waiting for the
// client to read it (the in-process pipe has no buffer).
func objectServer(t *testing.T) *infergate.Client {
	t.Helper()
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for s := pancakesJSON; s != ""; {
			n := min(3, len(s))
			text, _ := json.Marshal(s[:n])
			s = s[n:]
			_, _ = io.WriteString(w, ev(`{`+head+`,"choices":[{"index":0,"delta":{"content":`+string(text)+`},"finish_reason":null}]}`))
		}
		_, _ = io.WriteString(w, finish("stop")+done)
	})
	return testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(handler)))
}

// toolServer answers the first turn with a call of the weather tool and the second with text.
func toolServer(t *testing.T) *infergate.Client {
	t.Helper()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if !strings.Contains(string(body), `"role":"tool"`) {
			_, _ = io.WriteString(w, toolDelta(`{"index":0,"id":"w","type":"function","function":{"name":"weather","arguments":"{\"city\":"}}`, "")+
				toolDelta(`{"index":0,"function":{"arguments":"\"Lisbon\"}"}}`, "tool_calls")+done)
			return
		}
		_, _ = io.WriteString(w, content("sunny")+finish("stop")+done)
	})
	return testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(handler)))
}

// Wait, called while another goroutine renders the partials, waits for the stream to end and
// returns the value, which the last partial shows too.
func TestObjectStreamWaitWhileAnotherGoroutineRanges(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		st := infergate.StreamObject[Recipe](context.Background(), objectServer(t).Chat, recipeRequest(),
			infergate.ObjectSpec{Mode: infergate.ObjectModePrompt})
		first, release, rendered := make(chan struct{}), make(chan struct{}), make(chan Recipe)
		go func() {
			var last Recipe
			for p, err := range st.Partials() {
				if err != nil {
					t.Errorf("partials: %v", err)
				}
				if last.Name == "" && p.Name != "" {
					close(first)
					<-release
				}
				last = p
			}
			rendered <- last
		}()
		<-first
		var obj *infergate.Object[Recipe]
		var err error
		waited := make(chan struct{})
		go func() {
			obj, err = st.Wait()
			close(waited)
		}()
		synctest.Wait()
		select {
		case <-waited:
			t.Fatalf("Wait returned (%v, %v) while the partials were still being read", obj, err)
		default:
		}
		close(release)
		last := <-rendered
		<-waited
		if err != nil || obj == nil {
			t.Fatalf("Wait: %v, %v", obj, err)
		}
		if diff := cmp.Diff(pancakes, obj.Value); diff != "" {
			t.Fatalf("value (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(obj.Value, last); diff != "" {
			t.Fatalf("last partial (-value +partial):\n%s", diff)
		}
		if again, err2 := st.Wait(); again != obj || err2 != nil {
			t.Fatalf("a second Wait returned %v, %v", again, err2)
		}
	})
}

// ToolRun.Wait, called while another goroutine ranges over the events, waits for the loop to end.
func TestToolRunWaitWhileAnotherGoroutineRanges(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		run := toolServer(t).Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}})
		first, release, ranged := make(chan struct{}), make(chan struct{}), make(chan int)
		go func() {
			n := 0
			for _, err := range run.Events() {
				if err != nil {
					t.Errorf("events: %v", err)
				}
				if n++; n == 1 {
					close(first)
					<-release
				}
			}
			ranged <- n
		}()
		<-first
		var res *infergate.ToolRunResult
		var err error
		waited := make(chan struct{})
		go func() {
			res, err = run.Wait()
			close(waited)
		}()
		synctest.Wait()
		select {
		case <-waited:
			t.Fatalf("Wait returned (%+v, %v) while the loop was still running", res, err)
		default:
		}
		close(release)
		if n := <-ranged; n < 4 {
			t.Fatalf("%d events", n)
		}
		<-waited
		if err != nil || res == nil || res.Answer == nil || res.Answer.Text() != "sunny" || res.Steps != 2 {
			t.Fatalf("Wait: %+v, %v", res, err)
		}
	})
}

// TestObjectStreamRunsOnceWhoeverComes draws who comes to a stream and in what order: goroutines
// that range over Partials (to the end, or breaking after some partials), goroutines that call
// Wait twice, and a context cancelled at a random partial. Whatever the interleaving, one of them
// runs the stream, the other rangers get nothing, and every Wait returns the same thing: the value
// (the one the runner's last partial shows) or an error, never nil and nil.
func TestObjectStreamRunsOnceWhoeverComes(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { objectStreamScenario(t, rand.New(rand.NewPCG(seed, 9))) })
		})
	}
}

type rangeOutcome struct {
	pairs   int
	last    Recipe
	err     error
	stopped bool // broke out of the loop
}

func objectStreamScenario(t *testing.T, rng *rand.Rand) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelAt := -1
	if rng.IntN(3) == 0 {
		cancelAt = rng.IntN(8)
	}
	st := infergate.StreamObject[Recipe](ctx, objectServer(t).Chat, recipeRequest(), infergate.ObjectSpec{Mode: infergate.ObjectModePrompt})
	var mu sync.Mutex
	var ranges []rangeOutcome
	type waitResult struct {
		obj *infergate.Object[Recipe]
		err error
	}
	var waits []waitResult
	var wg sync.WaitGroup
	for range 1 + rng.IntN(4) {
		if rng.IntN(2) == 0 {
			breakAt := -1
			if rng.IntN(3) == 0 {
				breakAt = rng.IntN(10)
			}
			wg.Go(func() {
				var out rangeOutcome
				for p, err := range st.Partials() {
					if out.pairs == cancelAt {
						cancel()
					}
					if out.pairs == breakAt {
						out.stopped = true
						break
					}
					out.pairs++
					out.last, out.err = p, err
				}
				mu.Lock()
				ranges = append(ranges, out)
				mu.Unlock()
			})
		} else {
			wg.Go(func() {
				for range 2 {
					obj, err := st.Wait()
					mu.Lock()
					waits = append(waits, waitResult{obj, err})
					mu.Unlock()
				}
			})
		}
		if rng.IntN(2) == 0 {
			synctest.Wait() // let the goroutines started so far get as far as they can
		}
	}
	wg.Wait()
	obj, err := st.Wait()
	if (obj == nil) == (err == nil) {
		t.Fatalf("Wait returned %v and %v", obj, err)
	}
	for _, w := range waits {
		if w.obj != obj || w.err != err {
			t.Fatalf("Waits disagree: %v, %v and %v, %v", w.obj, w.err, obj, err)
		}
	}
	runners := 0
	for _, r := range ranges {
		if r.pairs == 0 && !r.stopped {
			continue
		}
		runners++
		switch {
		case r.stopped && !errors.Is(err, context.Canceled):
			t.Fatalf("the runner broke out, Wait returned %v", err)
		case !r.stopped && err == nil && !cmp.Equal(r.last, obj.Value):
			t.Fatalf("last partial %+v, value %+v", r.last, obj.Value)
		case !r.stopped && err != nil && !errors.Is(r.err, err):
			t.Fatalf("the runner's last error %v, Wait's %v", r.err, err)
		}
	}
	if runners > 1 {
		t.Fatalf("%d goroutines ran the stream", runners)
	}
	switch {
	case err == nil && (obj.Value.Name != pancakes.Name || len(obj.Value.Steps) != 2):
		t.Fatalf("value %+v", obj.Value)
	case err != nil && !errors.Is(err, context.Canceled):
		t.Fatalf("error %v", err)
	}
}

// TestToolRunRunsOnceWhoeverComes is TestObjectStreamRunsOnceWhoeverComes for a tool loop: every
// Wait returns the same result, the answer when there is no error and the transcript so far when
// there is one.
func TestToolRunRunsOnceWhoeverComes(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 11))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				run := toolServer(t).Chat.RunTools(ctx, hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}})
				cancelAt := []int{-1, rng.IntN(6)}[rng.IntN(2)]
				var wg sync.WaitGroup
				var mu sync.Mutex
				var results []*infergate.ToolRunResult
				var errs []error
				for range 1 + rng.IntN(4) {
					breakAt := []int{-1, rng.IntN(6)}[rng.IntN(2)]
					ranger := rng.IntN(2) == 0
					wg.Go(func() {
						if ranger {
							n := 0
							for range run.Events() {
								if n == cancelAt {
									cancel()
								}
								if n == breakAt {
									break
								}
								n++
							}
							return
						}
						res, err := run.Wait()
						mu.Lock()
						results, errs = append(results, res), append(errs, err)
						mu.Unlock()
					})
					if rng.IntN(2) == 0 {
						synctest.Wait()
					}
				}
				wg.Wait()
				res, err := run.Wait()
				if res == nil || err == nil && (res.Answer == nil || res.Answer.Text() != "sunny" || res.Steps != 2) {
					t.Fatalf("Wait returned %+v and %v", res, err)
				}
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v", err)
				}
				for i := range results {
					if results[i] != res || errs[i] != err {
						t.Fatalf("Waits disagree: %v, %v and %v, %v", results[i], errs[i], res, err)
					}
				}
			})
		})
	}
}

// A loop body that panics ends the run: a Wait on another goroutine returns an error.
func TestObjectStreamWaitAfterTheRangePanicked(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		st := infergate.StreamObject[Recipe](context.Background(), objectServer(t).Chat, recipeRequest(),
			infergate.ObjectSpec{Mode: infergate.ObjectModePrompt})
		entered := make(chan struct{})
		panicked := make(chan any)
		go func() {
			defer func() { panicked <- recover() }()
			for range st.Partials() {
				close(entered)
				panic("render failed")
			}
		}()
		<-entered
		obj, err := st.Wait()
		if obj != nil || err == nil {
			t.Fatalf("Wait returned %v, %v", obj, err)
		}
		if r := <-panicked; r != "render failed" {
			t.Fatalf("recovered %v", r)
		}
	})
}

// A range over Events whose body panics ends the loop only once its tools have: a Wait on another
// goroutine returns after a tool still running was cancelled and returned, never before.
func TestToolRunWaitAfterTheRangePanicked(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, toolDelta(`{"index":0,"id":"a","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}`, "")+
				toolDelta(`{"index":1,"id":"b","type":"function","function":{"name":"slow","arguments":"{}"}}`, "tool_calls")+done)
		})
		client := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(handler)))
		var slowReturned atomic.Bool
		slow := mustTool(t, "slow", func(ctx context.Context, _ struct{}) (string, error) {
			<-ctx.Done()
			time.Sleep(time.Second) // a tool slow to notice; the fake clock makes it instant
			slowReturned.Store(true)
			return "", ctx.Err()
		})
		run := client.Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t), slow}})
		panicked := make(chan any)
		started := make(chan struct{})
		go func() {
			defer func() { panicked <- recover() }()
			first := true
			for ev, err := range run.Events() {
				if first {
					first = false
					close(started)
				}
				if err == nil && ev.Kind == infergate.ToolEventResult {
					panic("render failed")
				}
			}
		}()
		<-started // the range runs the loop; Wait comes second
		res, err := run.Wait()
		if err == nil || !slowReturned.Load() {
			t.Fatalf("Wait returned %v, %v while the slow tool had returned: %v", res, err, slowReturned.Load())
		}
		if r := <-panicked; r != "render failed" {
			t.Fatalf("recovered %v", r)
		}
	})
}
