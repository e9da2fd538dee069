package benchmarks

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// firstDeltaServer is a loopback server that sends the response headers, waits for the client to
// say its stream is open, sends one chunk, and pauses until the client has that chunk before it
// ends the stream. It records the moment just before it flushed the chunk.
type firstDeltaServer struct {
	*httptest.Server
	opened   chan struct{}
	received chan struct{}
	written  chan time.Time
}

// firstDeltaText is the first chunk's content.
const firstDeltaText = "Hello"

// settle lets the client goroutine block in its read before the chunk is written, so that the
// figure is the wake-up and decoding, not the client's own set-up.
const settle = time.Millisecond

// pauseLimit bounds the pause, so that a client that never reports the chunk cannot hang the server.
const pauseLimit = 5 * time.Second

func newFirstDeltaServer(tb testing.TB) *firstDeltaServer {
	s := &firstDeltaServer{
		opened:   make(chan struct{}, 1),
		received: make(chan struct{}, 1),
		written:  make(chan time.Time, 1),
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

func (s *firstDeltaServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	flusher := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	if !s.wait(r.Context(), s.opened) {
		return
	}
	time.Sleep(settle)
	fmt.Fprintf(w, "data: %s{\"role\":\"assistant\",\"content\":%q},\"logprobs\":null,\"finish_reason\":null}]}\n\n", chunkHead, firstDeltaText)
	s.written <- time.Now()
	flusher.Flush()
	if !s.wait(r.Context(), s.received) {
		return
	}
	fmt.Fprintf(w, "data: %s{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", chunkHead)
}

func (s *firstDeltaServer) wait(ctx context.Context, signal chan struct{}) bool {
	select {
	case <-signal:
		return true
	case <-ctx.Done():
	case <-time.After(pauseLimit):
	}
	return false
}

// measure runs one stream and returns the delay from the server's flush of the first chunk to the
// client holding it, and the chunk's text.
func (s *firstDeltaServer) measure(ctx context.Context, c contender) (time.Duration, string, error) {
	var got time.Time
	text, err := c.firstDelta(ctx,
		func() { s.opened <- struct{}{} },
		func() { got = time.Now(); s.received <- struct{}{} })
	if err != nil {
		return 0, text, err
	}
	select {
	case sent := <-s.written:
		return got.Sub(sent), text, nil
	default:
		return 0, text, fmt.Errorf("the server never wrote the first chunk")
	}
}

// percentile returns the p-th percentile (0 to 100) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func sortedCopy(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}

// sparseAudio returns a file of size bytes that takes no disk: all a hole.
func sparseAudio(tb testing.TB, size int64) *os.File {
	tb.Helper()
	f, err := os.Create(filepath.Join(tb.TempDir(), audioName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
	return f
}

// heapSampler tracks the largest heap in use while a call runs, above the heap in use just before.
// It reads runtime/metrics, which does not stop the world, every sampleEvery.
type heapSampler struct {
	baseline uint64
	peak     atomic.Uint64
	stop     chan struct{}
	done     chan struct{}
}

const (
	heapMetric  = "/memory/classes/heap/objects:bytes"
	sampleEvery = 100 * time.Microsecond
)

func heapInUse(sample []metrics.Sample) uint64 {
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// startHeapSampler collects garbage, takes the baseline and starts sampling.
func startHeapSampler() *heapSampler {
	runtime.GC()
	sample := []metrics.Sample{{Name: heapMetric}}
	h := &heapSampler{baseline: heapInUse(sample), stop: make(chan struct{}), done: make(chan struct{})}
	h.peak.Store(h.baseline)
	go func() {
		defer close(h.done)
		sample := []metrics.Sample{{Name: heapMetric}}
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			if v := heapInUse(sample); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

// finish stops sampling and returns the peak above the baseline, in bytes.
func (h *heapSampler) finish() uint64 {
	close(h.stop)
	<-h.done
	if v := heapInUse([]metrics.Sample{{Name: heapMetric}}); v > h.peak.Load() {
		h.peak.Store(v)
	}
	return h.peak.Load() - h.baseline
}
