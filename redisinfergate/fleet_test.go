package redisinfergate_test

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/internal/redistest"
)

// The fleet: processes × goroutines calling on one key, in windows of fleetWindow.
const (
	fleetProcesses  = 8
	fleetGoroutines = 4
	fleetWindow     = 2 * time.Second
	fleetRequests   = 20
)

// fleetDurationEnv sets how long a fleet runs outside CI (a Go duration), to try a change quickly.
const fleetDurationEnv = "INFERGATE_FLEET_DURATION"

// fleetDuration is how long each fleet calls: 30 s, in CI always; outside CI what fleetDurationEnv
// says, else 16 s with -short.
func fleetDuration(t *testing.T) time.Duration {
	if os.Getenv("CI") == "true" {
		return 30 * time.Second
	}
	if s := os.Getenv(fleetDurationEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 4*fleetWindow {
			t.Fatalf("%s=%q: want a duration of at least %v", fleetDurationEnv, s, 4*fleetWindow)
		}
		return d
	}
	if testing.Short() {
		// Long enough that Redis stays down past go-redis's own retries, so that calls fail open.
		return 16 * time.Second
	}
	return 30 * time.Second
}

// fleetQuotas is the gateway's group L scaled to windows of w: 20 requests, and the tokens of a
// minute in proportion.
func fleetQuotas(w time.Duration) infergate.Quotas {
	return infergate.Quotas{Groups: []infergate.QuotaGroup{{Name: "L", Models: []string{fleetModel, fallbackModel},
		Quota: infergate.Quota{Requests: fleetRequests, Tokens: int(500_000 * w / time.Minute), Window: w}}}}
}

// fleetRun is a fleet of processes calling one fake gateway, which enforces fleetQuotas.
type fleetRun struct {
	name      string
	params    fleetParams
	processes []*fleetProcess

	mu       sync.Mutex
	admitted []time.Time // when the fake admitted each call it answered

	reports []processReport
	errs    []error
}

// startFleet starts a fake gateway and the fleet's processes, limited through Redis at redisAddr,
// or each by an in-process limiter when redisAddr is "". Once ready, they call for d from the
// start they are given (go).
func startFleet(t *testing.T, name, redisAddr string, d time.Duration) *fleetRun {
	t.Helper()
	run := &fleetRun{name: name}
	q := fleetQuotas(fleetWindow)
	gw := gatewaytest.New(t, gatewaytest.WithRateLimits(q), gatewaytest.WithClock(time.Now), gatewaytest.WithAnyModel(),
		gatewaytest.WithResponder(func(gatewaytest.Request) gatewaytest.Reply {
			// Called once the fake has admitted the call, microseconds after its clock's reading.
			run.mu.Lock()
			run.admitted = append(run.admitted, time.Now())
			run.mu.Unlock()
			return gatewaytest.Reply{Content: "Hello."}
		}))
	run.params = fleetParams{URL: gw.URL(), Redis: redisAddr, Prefix: "fleet:" + name + ":" + fmt.Sprint(time.Now().UnixNano()),
		Quotas: q, Duration: d, Goroutines: fleetGoroutines}
	for range fleetProcesses {
		run.processes = append(run.processes, startProcess(t, roleCalls, run.params))
	}
	return run
}

// whenReady waits until every process is ready to call.
func (run *fleetRun) whenReady(t *testing.T) {
	t.Helper()
	for _, p := range run.processes {
		select {
		case <-p.ready:
		case <-p.done:
			t.Fatalf("a process of fleet %s ended before it was ready: %v\n%s", run.name, p.err, p.stderr.String())
		case <-time.After(2 * time.Minute):
			t.Fatalf("a process of fleet %s was not ready within 2 minutes", run.name)
		}
	}
}

// goAt tells every process to call from start.
func (run *fleetRun) goAt(t *testing.T, start time.Time) {
	t.Helper()
	run.params.Start, run.params.End = start, start.Add(run.params.Duration)
	for _, p := range run.processes {
		if err := p.start(start); err != nil {
			t.Fatal(err)
		}
	}
}

// wait collects the processes' reports.
func (run *fleetRun) wait() {
	for _, p := range run.processes {
		rep, err := p.report(time.Until(run.params.End) + time.Minute)
		if err != nil {
			run.errs = append(run.errs, err)
			continue
		}
		run.reports = append(run.reports, rep)
	}
}

// fleetFigures are a run's figures, summed over its processes.
type fleetFigures struct {
	processReport
	perWindow   []int // calls the fake admitted in each whole window of the run
	used        float64
	answers429  int
	lateAnswers int // 429s in windows starting at or after the time given to figures
}

func (run *fleetRun) figures(after time.Time) fleetFigures {
	var f fleetFigures
	for _, r := range run.reports {
		f.Started += r.Started
		f.Finished += r.Finished
		f.OK += r.OK
		f.Refused += r.Refused
		f.Ended += r.Ended
		f.Failed += r.Failed
		f.Unlimited += r.Unlimited
		f.Errors = append(f.Errors, r.Errors...)
		for at, n := range r.Answers429 {
			f.answers429 += n
			if !after.IsZero() && at >= after.UnixMilli() {
				f.lateAnswers += n
			}
		}
	}
	w := fleetWindow.Milliseconds()
	first := (run.params.Start.UnixMilli() + w - 1) / w * w // the first whole window's start
	last := run.params.End.UnixMilli() / w * w              // the end of the last whole one
	if last > first {
		f.perWindow = make([]int, (last-first)/w)
	}
	run.mu.Lock()
	for _, at := range run.admitted {
		if i := (at.UnixMilli() - first) / w; at.UnixMilli() >= first && int(i) < len(f.perWindow) {
			f.perWindow[i]++
		}
	}
	run.mu.Unlock()
	sum := 0
	for _, n := range f.perWindow {
		sum += n
	}
	if len(f.perWindow) > 0 {
		f.used = float64(sum) / float64(len(f.perWindow)*fleetRequests)
	}
	return f
}

func (f fleetFigures) String() string {
	return fmt.Sprintf("calls started %d, finished %d (answered %d, ended by a 429 %d, by the run's end %d, by another error %d); "+
		"429 answers %d; unlimited %d; admitted per whole window %v: %.1f%% of %d a window",
		f.Started, f.Finished, f.OK, f.Refused, f.Ended, f.Failed, f.answers429, f.Unlimited, f.perWindow, 100*f.used, fleetRequests)
}

// admittedBetween counts the calls the fake admitted in [from, to).
func (run *fleetRun) admittedBetween(from, to time.Time) int {
	run.mu.Lock()
	defer run.mu.Unlock()
	n := 0
	for _, at := range run.admitted {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// checkProcesses fails t on a process that failed, panicked, lost a call or met an unexpected error.
func (run *fleetRun) checkProcesses(t *testing.T, f fleetFigures) {
	t.Helper()
	for _, err := range run.errs {
		t.Error(err)
	}
	if len(run.reports) != fleetProcesses {
		t.Fatalf("%d processes of %d reported", len(run.reports), fleetProcesses)
	}
	if f.Started != f.Finished {
		t.Errorf("%d calls started, %d finished: calls were lost", f.Started, f.Finished)
	}
	if f.Failed > 0 {
		t.Errorf("%d calls failed: %s", f.Failed, strings.Join(f.Errors, "; "))
	}
	if f.OK == 0 {
		t.Error("no call was answered")
	}
}

// Eight processes of four goroutines call on one key, against a fake gateway enforcing a group L
// scaled to 2-second windows, for 30 s (fleetDuration), in three fleets at once:
//
//   - "redis": every process limited by redisinfergate's limiter on one Redis: no 429, and at
//     least 90% of the quota of every whole window used;
//   - "in-process": each process limited by its own infergate.NewLimiter: 429s, which shows that
//     the first fleet could fail;
//   - "redis-restart": as "redis", on a Redis of its own stopped at 40% of the run and started
//     again at 60%: no process fails, no call is lost, calls are admitted while Redis is down
//     (failing open: the processes count them as unlimited) and after it came back, and no 429
//     comes two windows after it is back.
//
// Real processes keep real time: the windows are the machine's clock's, Redis's TIME and the
// fake's alike.
func TestFleet(t *testing.T) {
	shared := redistest.Shared(t)
	restarted, err := redistest.Start()
	if err != nil {
		redistest.Unavailable(t, err)
	}
	t.Cleanup(restarted.Stop)
	d := fleetDuration(t)
	redisFleet := startFleet(t, "redis", shared.Addr, d)
	inProcess := startFleet(t, "in-process", "", d)
	restarting := startFleet(t, "redis-restart", restarted.Addr, d)
	fleets := []*fleetRun{redisFleet, inProcess, restarting}
	for _, run := range fleets {
		run.whenReady(t)
	}
	// Every process ready, and then the start of a window: a fleet that starts late in a window,
	// before it has filled it, has calls admitted in its last milliseconds that reach the gateway in
	// the next window, which they overrun (seen: two to four 429s in the first window, when the
	// processes were given a start of their own and some were late to it). Once the windows are
	// full from their start, nothing is admitted at their end.
	start := time.UnixMilli(windowStart(time.Now().Add(500*time.Millisecond), fleetWindow)).Add(fleetWindow)
	for _, run := range fleets {
		run.goAt(t, start)
	}

	stopAt, restartAt := start.Add(d*3/10), start.Add(d*7/10)
	time.Sleep(time.Until(stopAt))
	restarted.Stop()
	stoppedAt := time.Now()
	time.Sleep(time.Until(restartAt))
	if err := restarted.Restart(); err != nil {
		t.Fatal(err)
	}
	restartedAt := time.Now()

	var wg sync.WaitGroup
	for _, run := range fleets {
		wg.Go(run.wait)
	}
	wg.Wait()

	t.Run("redis", func(t *testing.T) {
		f := redisFleet.figures(time.Time{})
		t.Logf("%d processes × %d goroutines for %v, Redis limiter: %v", fleetProcesses, fleetGoroutines, d, f)
		redisFleet.checkProcesses(t, f)
		if f.answers429 != 0 {
			t.Errorf("%d answers were 429s; want none", f.answers429)
		}
		if f.used < 0.9 {
			t.Errorf("%.1f%% of the quota used; want at least 90%%", 100*f.used)
		}
	})
	t.Run("in-process", func(t *testing.T) {
		f := inProcess.figures(time.Time{})
		t.Logf("%d processes × %d goroutines for %v, a limiter in each process: %v", fleetProcesses, fleetGoroutines, d, f)
		inProcess.checkProcesses(t, f)
		if f.answers429 == 0 {
			t.Error("no 429: processes limited each by itself overran the key's quota without a refusal")
		}
	})
	t.Run("redis-restart", func(t *testing.T) {
		limitedAgain := time.UnixMilli(windowStart(restartedAt, fleetWindow)).Add(2 * fleetWindow)
		f := restarting.figures(limitedAgain)
		down, after := restarting.admittedBetween(stoppedAt, restartedAt), restarting.admittedBetween(restartedAt, restarting.params.End)
		t.Logf("%d processes × %d goroutines for %v, Redis stopped after %v for %v: %v; admitted while Redis was down %d, after it came back %d; 429s from %v on: %d",
			fleetProcesses, fleetGoroutines, d, stoppedAt.Sub(start).Round(time.Millisecond), restartedAt.Sub(stoppedAt).Round(time.Millisecond),
			f, down, after, limitedAgain.Sub(start).Round(time.Millisecond), f.lateAnswers)
		restarting.checkProcesses(t, f)
		if f.Unlimited == 0 {
			t.Error("no call went unlimited while Redis was down")
		}
		if down == 0 || after == 0 {
			t.Errorf("admitted while Redis was down: %d, after: %d; want calls going on in both", down, after)
		}
		switch {
		case restarting.params.End.Sub(limitedAgain) < fleetWindow:
			t.Logf("the run ends too soon after Redis came back to check that no 429 comes after %v", limitedAgain.Sub(start))
		case f.lateAnswers != 0:
			t.Errorf("%d 429s two windows after Redis came back; want none", f.lateAnswers)
		}
	})
}
