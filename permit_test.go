package infergate_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
)

// gauge is a Limiter that admits everything and counts the permits held.
type gauge struct{ held atomic.Int32 }

func (g *gauge) Acquire(context.Context, infergate.LimitRequest) (infergate.Permit, error) {
	g.held.Add(1)
	return gaugePermit{g}, nil
}

type gaugePermit struct{ g *gauge }

func (p gaugePermit) Release(infergate.LimitReport) { p.g.held.Add(-1) }

// A call waiting for a place of WithMaxConcurrency holds nothing of WithLimiter's quota: what the
// shared limiter admits is sent at once, in the window it was counted in, and a fleet's places are
// not taken by calls queued in one process.
func TestLimiterAdmitsOnlyCallsWithAPlace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		unblock := make(chan struct{})
		srv := &arrivals{answer: func(w http.ResponseWriter, r *http.Request) {
			<-unblock
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, limitedAnswer)
		}}
		lim := &gauge{}
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
			infergate.WithLimiter(lim), infergate.WithMaxConcurrency(1))
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if _, err := c.Chat.Create(t.Context(), chatOf("hello")); err != nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait()
		if sent, held := srv.count(), lim.held.Load(); sent != 1 || held != 1 {
			t.Errorf("%d calls sent and %d permits of the limiter held, want 1 and 1", sent, held)
		}
		close(unblock)
		wg.Wait()
		if held := lim.held.Load(); held != 0 {
			t.Errorf("%d permits held after the calls ended", held)
		}
	})
}

// sseAnswer is a stream of one delta, complete.
const sseAnswer = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

// A stream gives its place back when it ends or is closed, even when an observer's End hook
// panics there: the panic reaches the caller, the place does not stay taken.
func TestStreamGivesItsPlaceBackWhenAnObserverPanics(t *testing.T) {
	t.Parallel()
	panicky := infergate.WithObserver(func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		return ctx, &infergate.OperationHooks{End: func(infergate.OperationEnd) { panic("observer") }}
	})
	for name, end := range map[string]func(*infergate.ChatStream){
		"read to its end": func(st *infergate.ChatStream) {
			for st.Next() {
			}
		},
		"closed": func(st *infergate.ChatStream) { st.Close() },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := &arrivals{answer: func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("Accept") != "text/event-stream" {
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, limitedAnswer)
						return
					}
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = io.WriteString(w, sseAnswer)
				}}
				lim := &gauge{}
				c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
					infergate.WithLimiter(lim), infergate.WithMaxConcurrency(1))
				st, err := c.Chat.Stream(t.Context(), chatOf("hello"), panicky)
				if err != nil {
					t.Fatal(err)
				}
				func() {
					defer func() {
						if recover() == nil {
							t.Error("the observer's panic did not reach the caller")
						}
					}()
					end(st)
				}()
				if held := lim.held.Load(); held != 0 {
					t.Errorf("%d permits held after the stream ended", held)
				}
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				if _, err := c.Chat.Create(ctx, chatOf("hello")); err != nil {
					t.Errorf("the next call: %v", err)
				}
			})
		})
	}
}

// oddLimiter panics on its first Acquire, then admits with a nil Permit.
type oddLimiter struct{ calls atomic.Int32 }

func (l *oddLimiter) Acquire(context.Context, infergate.LimitRequest) (infergate.Permit, error) {
	if l.calls.Add(1) == 1 {
		panic("limiter")
	}
	return nil, nil
}

// A limiter that panics leaves no place of WithMaxConcurrency taken, and one that admits with a
// nil Permit has nothing to give back.
func TestOddLimiterKeepsNoPlace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := &arrivals{}
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
			infergate.WithLimiter(&oddLimiter{}), infergate.WithMaxConcurrency(1))
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the limiter's panic did not reach the caller")
				}
			}()
			_, _ = c.Chat.Create(t.Context(), chatOf("hello"))
		}()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if _, err := c.Chat.Create(ctx, chatOf("hello")); err != nil {
			t.Errorf("the next call: %v", err)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%d calls sent, want 1", n)
		}
	})
}

// sseWithUsage is a stream whose last chunk reports the tokens used.
const sseWithUsage = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":5,\"total_tokens\":12}}\n\n" +
	"data: [DONE]\n\n"

// A stream's permits learn the usage its last chunk reports, however its body's end arrives: with
// the last bytes (a chunked body often ends so) or after them.
func TestStreamReportsItsUsageToTheLimiter(t *testing.T) {
	t.Parallel()
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"end apart":          func(r io.Reader) io.Reader { return r },
		"end with the bytes": iotest.DataErrReader,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := &arrivals{answer: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, sseWithUsage)
			}}
			endsWithBytes := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
				resp, err := next(req)
				if resp != nil && resp.Body != nil {
					resp.Body = struct {
						io.Reader
						io.Closer
					}{wrap(resp.Body), resp.Body}
				}
				return resp, err
			}
			lim := &recording{}
			c := testClient(t, "https://gw.test", infergate.WithHTTPClient(infergate.InProcessClient(srv)),
				infergate.WithLimiter(lim), infergate.WithMiddleware(endsWithBytes))
			st, err := c.Chat.Stream(t.Context(), chatOf("hello"))
			if err != nil {
				t.Fatal(err)
			}
			for st.Next() {
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			st.Close()
			lim.mu.Lock()
			defer lim.mu.Unlock()
			if len(lim.reports) != 1 {
				t.Fatalf("%d releases, want 1", len(lim.reports))
			}
			if u := lim.reports[0].Usage; u == nil || u.TotalTokens != 12 {
				t.Errorf("released with usage %+v, want the stream's 12 tokens", u)
			}
		})
	}
}
