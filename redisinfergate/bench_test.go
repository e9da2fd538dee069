package redisinfergate_test

import (
	"context"
	"slices"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/redisinfergate"
)

// BenchmarkAcquireRelease is what the limiter adds to a call on loopback: an Acquire and a Release
// with usage to correct (two round trips), within a window never full. Its p50 and p99 are reported
// beside a PING's, the floor of a round trip, measured in the same run.
func BenchmarkAcquireRelease(b *testing.B) {
	rdb := newRedis(b)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		quota infergate.Quota
	}{
		{"requests+tokens", infergate.Quota{Requests: 1 << 30, Tokens: 1 << 40}},
		{"requests+tokens+concurrent", infergate.Quota{Requests: 1 << 30, Tokens: 1 << 40, Concurrent: 1 << 20}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			l := redisinfergate.NewLimiter(rdb, infergate.Quotas{Default: tc.quota})
			req := infergate.LimitRequest{Key: keyOf(b), Model: "glm-5", Tokens: 100}
			report := infergate.LimitReport{StatusCode: 200, Usage: &infergate.Usage{TotalTokens: 120}}
			ping := make([]time.Duration, 0, b.N)
			took := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			for b.Loop() {
				begun := time.Now()
				if err := rdb.Ping(ctx).Err(); err != nil {
					b.Fatal(err)
				}
				ping = append(ping, time.Since(begun))
				begun = time.Now()
				p, err := l.Acquire(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				p.Release(report)
				took = append(took, time.Since(begun))
			}
			b.StopTimer()
			if l.Unlimited() != 0 {
				b.Fatalf("%d calls went unlimited", l.Unlimited())
			}
			percentiles := func(d []time.Duration, unit string) {
				slices.Sort(d)
				b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-"+unit)
				b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-"+unit)
			}
			percentiles(took, "µs")
			percentiles(ping, "ping-µs")
		})
	}
}
