package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestSharedClient uses one Client from many goroutines at once, mixing plain calls and streams,
// per-call options and retries, and checks under -race that no call sees another's answer or
// header. One Client per process is the intended use.
func TestSharedClient(t *testing.T) {
	t.Parallel()
	echo := echoHandler(t)
	var attempts sync.Map // text -> tries so far; every fifth request fails once with a 503
	srv := newCountedServer(t, func(hit int64, w http.ResponseWriter, r *http.Request) {
		caller := r.Header.Get("X-Caller")
		if n, _ := attempts.LoadOrStore(caller, new(atomic.Int64)); strings.HasSuffix(caller, "0") || strings.HasSuffix(caller, "5") {
			if n.(*atomic.Int64).Add(1) == 1 {
				failWith(http.StatusServiceUnavailable)(w)
				return
			}
		}
		echo(hit, w, r)
	})
	client, _ := newTestClient(t, srv.URL, WithHeader("X-Client", "shared"))
	const workers, perWorker = 16, 25
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				text := fmt.Sprintf("w%d-%d", g, i)
				opts := []Option{WithHeader("X-Caller", text), WithTimeout(20 * time.Second), WithMaxRetries(1 + i%3)}
				var got string
				var err error
				if i%2 == 0 {
					got, err = streamText(context.Background(), client, text, opts...)
				} else {
					var resp *ChatCompletion
					if resp, err = client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage(text)}}, opts...); err == nil {
						got = resp.Text()
					}
				}
				if err != nil || got != "echo: "+text {
					t.Errorf("%s: got %q, %v", text, got, err)
				}
			}
		}()
	}
	wg.Wait()
	failedOnce := int64(workers * perWorker / 5)
	if hits := srv.hits.Load(); hits != workers*perWorker+failedOnce {
		t.Errorf("server saw %d requests, want %d calls plus %d retries", hits, workers*perWorker, failedOnce)
	}
}

// TestStreamCancelledFromAnotherGoroutine checks the supported way to stop a stream that another
// goroutine is reading: cancel its context. The reader's Next returns false and Err says why.
func TestStreamCancelledFromAnotherGoroutine(t *testing.T) {
	t.Parallel()
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		_, _ = w.Write([]byte(sseEvents(contentChunk("first", ""))))
		w.(http.Flusher).Flush()
		stall(r)
	})
	client, _ := newTestClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.Chat.Stream(ctx, ChatRequest{Messages: []Message{UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if !stream.Next() || stream.Current().Text() != "first" {
		t.Fatalf("first chunk: %v", stream.Err())
	}
	go cancel()
	if within(t, 10*time.Second, stream.Next) {
		t.Fatal("Next returned a chunk after cancellation")
	}
	if err := stream.Err(); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrIncompleteStream) {
		t.Fatalf("Err = %v, want context.Canceled and ErrIncompleteStream", err)
	}
	if got := stream.Completion().Text(); got != "first" {
		t.Errorf("Completion kept %q, want %q", got, "first")
	}
}

// echoHandler answers each chat request with its own last message, so that every answer can be
// checked against its request: "echo: <text>", streamed in pieces when the request asks for it. It
// also checks that the per-call X-Caller header belongs to the same request as the body.
func echoHandler(t *testing.T) func(int64, http.ResponseWriter, *http.Request) {
	return func(_ int64, w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			t.Errorf("server: bad request body: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		text := req.Messages[len(req.Messages)-1].Content
		if caller := r.Header.Get("X-Caller"); caller != "" && caller != text {
			t.Errorf("server: request for %q carried X-Caller %q", text, caller)
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, completionJSON("echo: "+text))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sseEvents(contentChunk("echo:", ""), contentChunk(" "+text, ""), contentChunk("", "stop"),
			`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, "[DONE]"))
	}
}

// streamText reads a whole stream and returns its text.
func streamText(ctx context.Context, c *Client, text string, opts ...Option) (string, error) {
	stream, err := c.Chat.Stream(ctx, ChatRequest{Messages: []Message{UserMessage(text)}}, opts...)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	var b strings.Builder
	for stream.Next() {
		b.WriteString(stream.Current().Text())
	}
	if stream.Err() != nil {
		return "", stream.Err()
	}
	if got := stream.Completion().Text(); got != b.String() {
		return "", fmt.Errorf("chunks say %q, Completion says %q", b.String(), got)
	}
	return b.String(), nil
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestLoad runs 1,000 streams and 1,000 plain calls at once through one Client against a loopback
// server: every answer must be the right one, connections must be reused (a tuned transport caps
// them at maxConns, and the count of connections the server accepted must stay near it: a
// connection that is not drained and released cannot be reused), and memory must come back.
// Goroutines left behind fail the run in TestMain.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	const maxConns = 64
	calls := Scaled(1000)
	srv := newCountedServer(t, echoHandler(t))
	tr := &http.Transport{MaxIdleConnsPerHost: maxConns, MaxConnsPerHost: maxConns, IdleConnTimeout: time.Minute}
	client := testClient(t, srv.URL, WithHTTPClient(&http.Client{Transport: tr}), WithMaxRetries(2))
	goroutinesBefore, heapBefore := runtime.NumGoroutine(), heapInUse()
	start := time.Now()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var failures atomic.Int64
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(2)
		go func() {
			defer wg.Done()
			text := fmt.Sprintf("stream-%d", i)
			if got, err := streamText(ctx, client, text, WithHeader("X-Caller", text)); err != nil || got != "echo: "+text {
				failures.Add(1)
				t.Errorf("stream %d: got %q, %v", i, got, err)
			}
		}()
		go func() {
			defer wg.Done()
			text := fmt.Sprintf("call-%d", i)
			resp, err := client.Chat.Create(ctx, ChatRequest{Messages: []Message{UserMessage(text)}}, WithHeader("X-Caller", text))
			if err != nil || resp.Text() != "echo: "+text {
				failures.Add(1)
				t.Errorf("call %d: got %v, %v", i, resp, err)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	tr.CloseIdleConnections()
	heapAfter := heapInUse()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > goroutinesBefore && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		heapAfter = heapInUse()
	}
	conns, hits := srv.conns.Load(), srv.hits.Load()
	t.Logf("%d streams + %d calls in %s: %d requests over %d connections; heap in use %.1f MiB before, %.1f MiB after; goroutines %d before, %d after",
		calls, calls, elapsed.Round(time.Millisecond), hits, conns, mib(heapBefore), mib(heapAfter), goroutinesBefore, runtime.NumGoroutine())
	if failures.Load() != 0 || hits != int64(2*calls) {
		t.Fatalf("%d failures, %d requests for %d calls", failures.Load(), hits, 2*calls)
	}
	// A stream whose server is slow to end its body after [DONE] is closed rather than waited for
	// (see ChatStream.close), so on a loaded machine a few connections are replaced: reuse means
	// far fewer connections than requests, not exactly maxConns.
	if conns > 2*maxConns {
		t.Errorf("%d connections for %d requests: connections are not being reused", conns, hits)
	}
	if heapAfter > heapBefore+32<<20 {
		t.Errorf("heap in use grew from %.1f MiB to %.1f MiB", mib(heapBefore), mib(heapAfter))
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// WithMaxConcurrency holds calls beyond the bound before anything is sent: with a bound of 2 and
// five calls (plain calls and streams) against a server that holds every answer, exactly two
// reach the server; each one that ends lets one more in; a stream holds its place until it is
// closed; a call whose context ends while it waits returns the context's error, never sent.
func TestMaxConcurrencyBoundsCallsInFlight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var arrived, inFlight, peak atomic.Int32
		gate := make(chan struct{})
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived.Add(1)
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			defer inFlight.Add(-1)
			<-gate
			if strings.HasSuffix(r.URL.Path, "/chat/completions") {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
				return
			}
			io.WriteString(w, `{"data":[]}`)
		})
		c := testClient(t, "https://gw.test", WithHTTPClient(inProcess{handler}.Client()), WithMaxConcurrency(2))
		var wg sync.WaitGroup
		errs := make(chan error, 5)
		for i := range 5 {
			wg.Go(func() {
				if i%2 == 0 {
					_, err := c.Models.List(context.Background())
					errs <- err
					return
				}
				stream, err := c.Chat.Stream(context.Background(), ChatRequest{Model: "m", Messages: []Message{UserMessage("x")}})
				if err == nil {
					for stream.Next() {
					}
					err = stream.Err()
				}
				errs <- err
			})
		}
		synctest.Wait()
		if got := arrived.Load(); got != 2 {
			t.Fatalf("%d calls reached the server with a bound of 2", got)
		}

		// A call whose context ends while it waits sends nothing.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := c.Models.List(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("waiting call: err = %v, want context.DeadlineExceeded", err)
		}
		if got := arrived.Load(); got != 2 {
			t.Errorf("the call that gave up while waiting was sent (%d arrivals)", got)
		}

		for range 5 {
			gate <- struct{}{}
			synctest.Wait()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("call: %v", err)
			}
		}
		if arrived.Load() != 5 || peak.Load() != 2 {
			t.Errorf("%d arrivals, peak in flight %d; want 5 and 2", arrived.Load(), peak.Load())
		}
	})
}

// WithMaxConcurrency belongs to a client: a call given it is refused before sending, as is a
// negative bound; zero means no bound.
func TestMaxConcurrencyIsAClientOption(t *testing.T) {
	t.Parallel()
	c := testClient(t, "https://gw.test", WithHTTPClient(inProcess{http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"data":[]}`)
	})}.Client()))
	var invalid *ValidationError
	if _, err := c.Models.List(context.Background(), WithMaxConcurrency(3)); !errors.As(err, &invalid) || invalid.Field != "MaxConcurrency" {
		t.Errorf("a call given WithMaxConcurrency: err = %v, want a *ValidationError", err)
	}
	if _, err := NewClient(WithAPIKey("sk-test-key"), WithMaxConcurrency(-1)); !errors.As(err, &invalid) || invalid.Field != "MaxConcurrency" {
		t.Errorf("WithMaxConcurrency(-1): err = %v, want a *ValidationError", err)
	}
	if _, err := NewClient(WithAPIKey("sk-test-key"), WithMaxConcurrency(0)); err != nil {
		t.Errorf("WithMaxConcurrency(0): %v", err)
	}
}
