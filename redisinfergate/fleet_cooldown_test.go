package redisinfergate_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/internal/redistest"
)

// A model down, its outage remembered through Redis: the first call of the first process pays the
// model's retries before it falls back, and cools it; every later call, in that process and in two
// others started after it, goes straight to the next model, sending the model that is down nothing.
// A process without the cooldown pays the retries on every call: the time per call before.
func TestFleetCooldownShared(t *testing.T) {
	const calls = 3
	gw := gatewaytest.New(t, gatewaytest.WithAnyModel(), gatewaytest.WithModelDown(fleetModel, gatewaytest.OutageProviderError))
	q := fleetQuotas(time.Minute)
	q.Groups[0].Quota.Requests = 1000 // the retries must not wait for a window: what is measured is the cooldown
	p := fleetParams{URL: gw.URL(), Redis: redistest.Shared(t).Addr, Prefix: keyOf(t), Quotas: q, Calls: calls}
	sentDown := func() int {
		n := 0
		for _, r := range gw.Requests() {
			if r.JSON["model"] == fleetModel {
				n++
			}
		}
		return n
	}
	reports := func(procs ...*fleetProcess) []processReport {
		var reps []processReport
		for _, fp := range procs {
			rep, err := fp.report(2 * time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failed > 0 || len(rep.Calls) != calls {
				t.Fatalf("%d of %d calls answered: %v", len(rep.Calls), calls, rep.Errors)
			}
			for _, c := range rep.Calls {
				if c.Served != fallbackModel {
					t.Fatalf("a call was served by %q; want %q", c.Served, fallbackModel)
				}
			}
			reps = append(reps, rep)
		}
		return reps
	}

	without := reports(startProcess(t, roleCooldown, p))[0]
	for i, c := range without.Calls {
		if !c.Tried || c.Skipped {
			t.Errorf("without a cooldown, call %d: tried %v, skipped %v; want the model down tried", i, c.Tried, c.Skipped)
		}
	}
	perCallBefore := sentDown() / calls

	p.Cooldown = time.Minute
	first := reports(startProcess(t, roleCooldown, p))[0]
	sentByFirst := sentDown() - perCallBefore*calls
	others := reports(startProcess(t, roleCooldown, p), startProcess(t, roleCooldown, p))
	var after []time.Duration
	for i, rep := range append([]processReport{first}, others...) {
		for j, c := range rep.Calls {
			if i == 0 && j == 0 {
				if !c.Tried {
					t.Error("the first call with the cooldown did not try the model down")
				}
				continue
			}
			if !c.Skipped || c.Tried {
				t.Errorf("process %d, call %d: skipped %v, tried %v; want the model down skipped", i, j, c.Skipped, c.Tried)
			}
			after = append(after, c.Took)
		}
	}
	if n := sentDown() - perCallBefore*calls - sentByFirst; n != 0 {
		t.Errorf("the model down was sent %d requests after the first call cooled it; want none", n)
	}
	if sentByFirst != perCallBefore {
		t.Errorf("the first call with the cooldown sent the model down %d requests; want its retries' %d", sentByFirst, perCallBefore)
	}
	slices.Sort(after)
	t.Logf("time per call, model down (%d requests to it a call, retries included): without a cooldown %s; "+
		"with the cooldown in Redis, the first call %v, the %d later calls in 3 processes p50 %v, max %v",
		perCallBefore, durations(without.Calls), first.Calls[0].Took.Round(time.Millisecond), len(after),
		after[len(after)/2].Round(time.Microsecond), after[len(after)-1].Round(time.Microsecond))
	if first.Calls[0].Took < 10*after[len(after)/2] {
		t.Errorf("a call skipping the model down took %v, the call that paid its retries %v; want a tenth at most",
			after[len(after)/2], first.Calls[0].Took)
	}
}

func durations(calls []callReport) string {
	var s []string
	for _, c := range calls {
		s = append(s, c.Took.Round(time.Millisecond).String())
	}
	return fmt.Sprint(strings.Join(s, ", "))
}
