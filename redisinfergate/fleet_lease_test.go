package redisinfergate_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/internal/redistest"
	"github.com/infergate/infergate-go/redisinfergate"
)

// A process killed (SIGKILL) while its calls hold every concurrent place of the key: the places
// stay taken while it lives, longer than the lease time, since it renews its leases; once it is
// killed, another process gets them all back within the lease time. Not parallel, as the other
// fleet tests: their processes load the machine, and the timed tests running beside them would
// feel it.
func TestFleetKilledProcessGivesPlacesBack(t *testing.T) {
	const places, lease = 4, 2 * time.Second
	holding := make(chan struct{}, places)
	var probes atomic.Int64
	gw := gatewaytest.New(t, gatewaytest.WithAnyModel(), gatewaytest.WithResponder(func(r gatewaytest.Request) gatewaytest.Reply {
		if bytes.Contains(r.Body, []byte(holdQuestion)) {
			holding <- struct{}{}
			// Held until the caller goes away: the fake ends the wait when the request's context does.
			return gatewaytest.Reply{Content: "Held.", Quirks: gatewaytest.Quirks{Delay: time.Hour}}
		}
		probes.Add(1)
		return gatewaytest.Reply{Content: "Hello."}
	}))
	q := fleetQuotas(fleetWindow)
	q.Groups[0].Quota = infergate.Quota{Concurrent: places}
	rdb := newRedis(t)
	p := fleetParams{URL: gw.URL(), Redis: redistest.Shared(t).Addr, Prefix: keyOf(t), Quotas: q, Lease: lease,
		End: time.Now().Add(time.Minute), Goroutines: places}
	holder := startProcess(t, roleHold, p)
	for range places {
		select {
		case <-holding:
		case <-holder.done:
			t.Fatalf("the holding process ended: %v\n%s", holder.err, holder.stderr.String())
		case <-time.After(30 * time.Second):
			t.Fatal("the holding process's calls did not all arrive")
		}
	}

	limiter := redisinfergate.NewLimiter(rdb, q, redisinfergate.WithPrefix(p.Prefix), redisinfergate.WithLeaseTime(lease))
	client := gw.Client(infergate.WithLimiter(limiter))
	// Longer than a lease: the holder renews its leases while it lives.
	ctx, cancel := context.WithTimeout(context.Background(), lease+lease/2)
	_, err := client.Chat.Create(ctx, question("Say hello."))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || probes.Load() != 0 {
		t.Fatalf("a call while the holder lives: %v, %d sent; want it to wait for a place, none sent", err, probes.Load())
	}

	if err := holder.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	var wg sync.WaitGroup
	took := make([]time.Duration, places)
	for i := range places {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 4*lease)
			defer cancel()
			if _, err := client.Chat.Create(ctx, question("Say hello.")); err != nil {
				t.Errorf("a call after the holder was killed: %v", err)
			}
			took[i] = time.Since(killed)
		})
	}
	wg.Wait()
	last := took[0]
	for _, d := range took {
		last = max(last, d)
	}
	t.Logf("lease time %v: the %d places of the process killed came back to another within %v of the kill (each call's end: %v)",
		lease, places, last.Round(time.Millisecond), took)
	if bound := lease + time.Second; last > bound {
		t.Errorf("the places came back %v after the kill; want within the lease time, %v, and a second of polling and load", last, lease)
	}
	if limiter.Unlimited() != 0 {
		t.Errorf("%d calls went unlimited", limiter.Unlimited())
	}
}
