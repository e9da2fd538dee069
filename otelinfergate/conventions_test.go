package otelinfergate_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go/otelinfergate"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The histograms' buckets are the ones the GenAI conventions give: the client's duration and token
// usage their own, the time to the first chunk the server's time to first token, and the time per
// chunk the server's time per output token. The SDK's default buckets (0, 5, 10, ... s) would put
// every call under 5 s in one bucket.
func TestHistogramBucketsAreTheConventions(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(otelinfergate.WithChunkTiming(true))
		client := scriptedClient(tel, []event{
			{30 * time.Millisecond, `{"id":"s5","model":"m-1","choices":[{"index":0,"delta":{"content":"one"}}]}`},
			{10 * time.Millisecond, `{"id":"s5","model":"m-1","choices":[{"index":0,"delta":{"content":" two"},"finish_reason":"stop"}]}`},
			{0, `{"id":"s5","model":"m-1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`},
			{0, `[DONE]`},
		}, false)
		stream, err := client.Chat.Stream(context.Background(), streamRequest)
		if err != nil {
			t.Fatal(err)
		}
		for stream.Next() {
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		rm := tel.collect(t)
		for name, want := range map[string][]float64{
			"gen_ai.client.operation.duration": {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92},
			"gen_ai.client.token.usage": {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
				16777216, 67108864},
			"gen_ai.client.operation.time_to_first_chunk": {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
				0.75, 1.0, 2.5, 5.0, 7.5, 10.0},
			"gen_ai.client.operation.time_per_output_chunk": {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
				0.75, 1.0, 2.5},
		} {
			got := histogramBounds(rm, name)
			if len(got) == 0 {
				t.Errorf("%s: no data point", name)
			}
			for _, b := range got {
				if !slices.Equal(b, want) {
					t.Errorf("%s: bounds %v, want %v", name, b, want)
				}
			}
		}
	})
}

// histogramBounds returns the bucket bounds of each data point of a histogram.
func histogramBounds(rm metricdata.ResourceMetrics, name string) [][]float64 {
	var out [][]float64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out = append(out, p.Bounds)
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					out = append(out, p.Bounds)
				}
			}
		}
	}
	return out
}
