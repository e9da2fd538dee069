package infergate_test

import (
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// BenchmarkLimiterCost is what NewLimiter adds to a Create against the fake gateway: the same call
// without a limiter ("none") and with NewLimiter(GatewayQuotas()), its groups and windows as the
// gateway publishes them but every count raised a millionfold, as an account's multiplier would
// raise it, so that the benchmark measures the admission and never waits for a window. Compare the
// two with benchstat over several counts; cpu-ns/op is the steadier figure on a loaded machine.
func BenchmarkLimiterCost(b *testing.B) {
	gw := gatewaytest.New(b)
	q := infergate.GatewayQuotas()
	raise := func(q *infergate.Quota) { q.Requests *= 1_000_000; q.Tokens *= 1_000_000 }
	raise(&q.Default)
	for i := range q.Groups {
		raise(&q.Groups[i].Quota)
	}
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Tell me a long story.")}}
	for _, bc := range []struct {
		name string
		opts []infergate.Option
	}{
		{"none", nil},
		{"NewLimiter", []infergate.Option{infergate.WithLimiter(infergate.NewLimiter(q))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := gw.Client(bc.opts...)
			b.ReportAllocs()
			start, measured := processCPU()
			for b.Loop() {
				if _, err := c.Chat.Create(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
			if end, ok := processCPU(); measured && ok {
				// The process's CPU time, client and fake together: the cost, which the machine's
				// load moves far less than the wall time.
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkLimiterAdmission is NewLimiter's own work for one attempt: Acquire and Release, under
// GatewayQuotas' groups, with counts that never bind.
func BenchmarkLimiterAdmission(b *testing.B) {
	q := infergate.GatewayQuotas()
	q.Groups[1].Quota.Requests, q.Groups[1].Quota.Tokens = 1<<60, 1<<60
	lim := infergate.NewLimiter(q)
	req := infergate.LimitRequest{Key: "key:0123456789abcdef", Model: "llama-3.3-70b", Route: "/chat/completions", Tokens: 5}
	b.ReportAllocs()
	for b.Loop() {
		p, err := lim.Acquire(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		p.Release(infergate.LimitReport{StatusCode: 200})
	}
}
