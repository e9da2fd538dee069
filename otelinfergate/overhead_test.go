package otelinfergate_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/otelinfergate"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// replay answers every request with the same event stream from memory, so that what is measured is
// the stream's decoding and what observing it adds.
type replay []byte

func (r replay) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	h := http.Header{"Content-Type": {"text/event-stream"}}
	return &http.Response{StatusCode: http.StatusOK, Header: h, Body: io.NopCloser(bytes.NewReader(r)), Request: req}, nil
}

// contentStream is n content chunks shaped like a provider's, a finishing chunk, usage and [DONE].
func contentStream(n int) replay {
	var buf bytes.Buffer
	head := `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","choices":[{"index":0,"delta":`
	for i := range n {
		fmt.Fprintf(&buf, "data: %s{\"content\":\" word%d\"},\"finish_reason\":null}]}\n\n", head, i%997)
	}
	fmt.Fprintf(&buf, "data: %s{},\"finish_reason\":\"stop\"}]}\n\n", head)
	buf.WriteString(`data: {"id":"chatcmpl-8f3a9c2b","model":"llama-3.3-70b","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":10000,"total_tokens":10012}}` + "\n\n")
	buf.WriteString("data: [DONE]\n\n")
	return buf.Bytes()
}

// recording instruments with providers that record everything: every span sampled and exported,
// every metric aggregated.
func recording(opts ...otelinfergate.Option) infergate.Option {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	return otelinfergate.Instrument(append([]otelinfergate.Option{otelinfergate.WithTracerProvider(tp),
		otelinfergate.WithMeterProvider(mp)}, opts...)...)
}

func replayClient(tb testing.TB, body replay, opts ...infergate.Option) *infergate.Client {
	base := []infergate.Option{infergate.WithBaseURL("https://gateway.example"), infergate.WithAPIKey(testKey),
		infergate.WithHTTPClient(&http.Client{Transport: body})}
	client, err := infergate.NewClient(append(base, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return client
}

func readStream(tb testing.TB, client *infergate.Client, want int) {
	stream, err := client.Chat.Stream(context.Background(), streamRequest)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for stream.Next() {
		n++
	}
	if stream.Err() != nil || n < want {
		tb.Fatalf("%d chunks, err %v", n, stream.Err())
	}
}

// BenchmarkStreamOverhead reads a 10,000-chunk stream without instrumentation and with a recording
// provider, both in every iteration (in turn first), so that both sides see the same machine: as
// Instrument records by default, and with WithChunkTiming(true). Time is the process's CPU time
// where the platform tells it (what other programs take on a shared machine is not counted; the
// garbage collector's work is). It reports each side's median per chunk and the median of the
// iterations' overheads in percent: medians, because a busy machine slows single iterations down
// at random.
func BenchmarkStreamOverhead(b *testing.B) {
	const chunks = 10_000
	body := contentStream(chunks)
	for _, bc := range []struct {
		name string
		opts []otelinfergate.Option
	}{{"default", nil}, {"with-chunk-timing", []otelinfergate.Option{otelinfergate.WithChunkTiming(true)}}} {
		b.Run(bc.name, func(b *testing.B) {
			bare, instrumented := replayClient(b, body), replayClient(b, body, recording(bc.opts...))
			measure := func(client *infergate.Client) time.Duration {
				start := processTime()
				readStream(b, client, chunks)
				return processTime() - start
			}
			var bareTimes, instrumentedTimes, overheads []float64
			for i := 0; b.Loop(); i++ {
				var bareTime, instrumentedTime time.Duration
				if i%2 == 0 {
					bareTime, instrumentedTime = measure(bare), measure(instrumented)
				} else {
					instrumentedTime, bareTime = measure(instrumented), measure(bare)
				}
				if bareTime <= 0 {
					continue // below the clock's resolution
				}
				bareTimes = append(bareTimes, float64(bareTime.Nanoseconds())/chunks)
				instrumentedTimes = append(instrumentedTimes, float64(instrumentedTime.Nanoseconds())/chunks)
				overheads = append(overheads, 100*(float64(instrumentedTime)/float64(bareTime)-1))
			}
			if len(overheads) > 0 {
				b.ReportMetric(median(bareTimes), "bare-ns/chunk")
				b.ReportMetric(median(instrumentedTimes), "instrumented-ns/chunk")
				b.ReportMetric(median(overheads), "overhead-%")
			}
		})
	}
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// Instrumenting a stream allocates per stream, never per chunk, also when every chunk is timed:
// what it adds to a 1,000-chunk stream is what it adds to a 10-chunk one.
func TestNoAllocationPerChunk(t *testing.T) {
	added := func(chunks int) float64 {
		body := contentStream(chunks)
		bare, instrumented := replayClient(t, body), replayClient(t, body, recording(otelinfergate.WithChunkTiming(true)))
		a := testing.AllocsPerRun(20, func() { readStream(t, bare, chunks) })
		b := testing.AllocsPerRun(20, func() { readStream(t, instrumented, chunks) })
		return b - a
	}
	short, long := added(10), added(1000)
	if long > short+2 { // a little slack for the SDK's pools refilling
		t.Errorf("instrumentation adds %.0f allocations to a 10-chunk stream and %.0f to a 1000-chunk one", short, long)
	}
}
