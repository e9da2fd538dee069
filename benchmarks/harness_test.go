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

// firstDeltaSample is one stream's delay to its first delta, from the server's flush of the chunk
// to the client holding it, and its part until the body's Read returned the chunk.
type firstDeltaSample struct{ total, wake time.Duration }

type firstDeltaSamples []firstDeltaSample

// split returns the delays, the wake-ups and the clients' own work, each sorted.
func (s firstDeltaSamples) split() (total, wake, own []time.Duration) {
	for _, x := range s {
		total, wake, own = append(total, x.total), append(wake, x.wake), append(own, x.total-x.wake)
	}
	return sortedCopy(total), sortedCopy(wake), sortedCopy(own)
}

// measure runs one stream and returns its first delta's delays and text.
func (s *firstDeltaServer) measure(ctx context.Context, c contender, arrival *arrivalTransport) (firstDeltaSample, string, error) {
	var got time.Time
	text, err := c.firstDelta(ctx,
		func() { s.opened <- struct{}{} },
		func() { got = time.Now(); s.received <- struct{}{} })
	if err != nil {
		return firstDeltaSample{}, text, err
	}
	select {
	case sent := <-s.written:
		return firstDeltaSample{total: got.Sub(sent), wake: arrival.first().Sub(sent)}, text, nil
	default:
		return firstDeltaSample{}, text, fmt.Errorf("the server never wrote the first chunk")
	}
}

// arrivalTransport notes when the body of the last response first returned data to its reader:
// the moment the client is awake with the first chunk in hand, before its own work on it.
type arrivalTransport struct {
	base    http.RoundTripper
	arrived atomic.Int64 // nanoseconds since epoch, 0 until the first data
}

// epoch is the base of the arrival times, which keeps their monotonic clock reading.
var epoch = time.Now()

func (t *arrivalTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.arrived.Store(0)
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		resp.Body = &arrivalBody{ReadCloser: resp.Body, arrived: &t.arrived}
	}
	return resp, err
}

func (t *arrivalTransport) first() time.Time { return epoch.Add(time.Duration(t.arrived.Load())) }

type arrivalBody struct {
	io.ReadCloser
	arrived *atomic.Int64
}

func (b *arrivalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.arrived.Load() == 0 {
		b.arrived.Store(int64(time.Since(epoch)))
	}
	return n, err
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
