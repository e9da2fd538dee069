package redisinfergate_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/internal/redisquota"
	"github.com/infergate/infergate-go/internal/redistest"
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
			req := infergate.LimitRequest{Key: keyOf(b), Model: "glm-5", Tokens: 100, Route: "/chat/completions"}
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

// BenchmarkCreateLimited is a whole Create against the fake gateway without a limiter and with
// redisinfergate's, interleaved call by call so that the machine's load weighs on both alike: each
// call's time is reported (p50 of each, and the ratio of the p50s), under quotas that never bind.
func BenchmarkCreateLimited(b *testing.B) {
	gw := gatewaytest.New(b)
	q := infergate.Quotas{Default: infergate.Quota{Requests: 1 << 30, Tokens: 1 << 40, Concurrent: 1 << 20}}
	plain := gw.Client()
	limited := gw.Client(infergate.WithLimiter(redisinfergate.NewLimiter(newRedis(b), q, redisinfergate.WithPrefix(keyOf(b)))))
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Say hello.")}}
	none := make([]time.Duration, 0, b.N)
	redis := make([]time.Duration, 0, b.N)
	call := func(c *infergate.Client, took *[]time.Duration) {
		begun := time.Now()
		if _, err := c.Chat.Create(b.Context(), req); err != nil {
			b.Fatal(err)
		}
		*took = append(*took, time.Since(begun))
	}
	b.ReportAllocs()
	for b.Loop() {
		call(plain, &none)
		call(limited, &redis)
	}
	b.StopTimer()
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	n, r := p50(none), p50(redis)
	b.ReportMetric(float64(n.Microseconds()), "p50-none-µs")
	b.ReportMetric(float64(r.Microseconds()), "p50-redis-µs")
	b.ReportMetric(float64(r)/float64(n), "p50-ratio")
}

// BenchmarkAcquireReleaseByClient is an Acquire and its Release through go-redis (this module's
// limiter) and through internal/resp (redisquota.Dial's, the infergate command's), interleaved call
// by call so that the machine's load weighs on both alike, under quotas that never bind: the p50
// of each, the ratio of the p50s (resp's over go-redis's), and each one's allocations a call.
func BenchmarkAcquireReleaseByClient(b *testing.B) {
	q := infergate.Quotas{Default: infergate.Quota{Requests: 1 << 30, Tokens: 1 << 40, Concurrent: 1 << 20}}
	goRedis := redisinfergate.NewLimiter(newRedis(b), q, redisinfergate.WithPrefix(keyOf(b)))
	resp, _, closeResp, err := redisquota.Dial(b.Context(), "redis://"+redistest.Shared(b).Addr, q, redisquota.WithPrefix(keyOf(b)))
	if err != nil {
		b.Fatal(err)
	}
	defer closeResp()
	req := infergate.LimitRequest{Key: keyOf(b), Model: "glm-5", Tokens: 100, Route: "/chat/completions"}
	report := infergate.LimitReport{StatusCode: 200, Usage: &infergate.Usage{TotalTokens: 120}}
	byGoRedis := make([]time.Duration, 0, b.N)
	byResp := make([]time.Duration, 0, b.N)
	var allocsGoRedis, allocsResp uint64
	var before, after runtime.MemStats
	call := func(l infergate.Limiter, took *[]time.Duration, allocs *uint64) {
		runtime.ReadMemStats(&before)
		begun := time.Now()
		p, err := l.Acquire(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		p.Release(report)
		*took = append(*took, time.Since(begun))
		runtime.ReadMemStats(&after)
		*allocs += after.Mallocs - before.Mallocs
	}
	for b.Loop() {
		call(goRedis, &byGoRedis, &allocsGoRedis)
		call(resp, &byResp, &allocsResp)
	}
	b.StopTimer()
	if n := goRedis.Unlimited() + resp.(*redisquota.Limiter).Unlimited(); n != 0 {
		b.Fatalf("%d calls went unlimited", n)
	}
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	g, r := p50(byGoRedis), p50(byResp)
	b.ReportMetric(float64(g.Microseconds()), "p50-goredis-µs")
	b.ReportMetric(float64(r.Microseconds()), "p50-resp-µs")
	b.ReportMetric(float64(r)/float64(g), "p50-ratio")
	b.ReportMetric(float64(allocsGoRedis)/float64(len(byGoRedis)), "allocs-goredis/call")
	b.ReportMetric(float64(allocsResp)/float64(len(byResp)), "allocs-resp/call")
}
