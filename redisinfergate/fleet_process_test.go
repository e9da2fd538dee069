package redisinfergate_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/redisinfergate"
	"github.com/redis/go-redis/v9"
)

// The fleet tests run real processes: the test binary again, told by roleEnv what to be and by
// paramsEnv (fleetParams in JSON) where the fake gateway and Redis are. TestMain sends such a
// process to its role instead of the tests; it reports on stdout, in one reportPrefix line.
const (
	roleEnv      = "INFERGATE_FLEET_ROLE"
	paramsEnv    = "INFERGATE_FLEET_PARAMS"
	reportPrefix = "fleet-report "
	readyLine    = "fleet-ready"
)

// The roles of a fleet process.
const (
	roleCalls    = "calls"    // Goroutines calling from Start to End
	roleHold     = "hold"     // Concurrent calls that the fake holds open until the process is killed
	roleCooldown = "cooldown" // Calls calls one after the other, a model of their list down
)

// fleetModel is the model the fleet calls, of quota group L; fallbackModel serves when it is down.
const (
	fleetModel    = "glm-5.1"
	fallbackModel = "kimi-k2.6"
	holdQuestion  = "Hold the place."
)

// fleetParams is what a fleet process is told.
type fleetParams struct {
	URL        string // the fake gateway's
	Redis      string // the Redis server's address; "" for an in-process limiter
	Prefix     string // the Redis keys' prefix: one per run
	Quotas     infergate.Quotas
	Lease      time.Duration // the leases' time (role hold)
	Start, End time.Time     // role calls: when the calls begin, and end; a zero Start is read from stdin
	Duration   time.Duration // role calls: from a Start read from stdin to End
	Goroutines int           // calling at once
	Calls      int           // calls, one after the other (role cooldown)
	Cooldown   time.Duration // WithModelCooldown's (role cooldown); 0 for none
}

// processReport is what a fleet process reports.
type processReport struct {
	Started, Finished int64 // calls
	OK                int64 // calls answered
	Refused           int64 // calls that ended with a 429, their retries spent
	Ended             int64 // calls ended by the run's end, waiting or in flight
	Failed            int64 // calls that ended with any other error
	Errors            []string
	Answers429        map[int64]int // 429 answers received, by the start of their window (Unix ms)
	Unlimited         int64         // redisinfergate's Limiter.Unlimited
	Calls             []callReport  // role cooldown
}

// callReport is one call of role cooldown.
type callReport struct {
	Took    time.Duration
	Skipped bool   // the down model was skipped as cooling
	Tried   bool   // the down model was sent the call
	Served  string // the model that answered
}

// runFleetProcess is a fleet process's whole life; it returns the exit code.
func runFleetProcess(role string) int {
	var p fleetParams
	if err := json.Unmarshal([]byte(os.Getenv(paramsEnv)), &p); err != nil {
		fmt.Fprintln(os.Stderr, "fleet process: bad parameters:", err)
		return 2
	}
	var rep processReport
	var err error
	switch role {
	case roleCalls:
		rep, err = runCalls(p)
	case roleHold:
		err = runHold(p)
	case roleCooldown:
		rep, err = runCooldown(p)
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet process:", err)
		return 2
	}
	line, _ := json.Marshal(rep)
	fmt.Printf("%s%s\n", reportPrefix, line)
	if rep.Started != rep.Finished {
		return 3
	}
	return 0
}

// fleetClient is a process's client of the fake gateway, with its limiter: redisinfergate's when
// p names a Redis, else an in-process one; and with p.Cooldown, a cooldown shared through the same
// Redis. Closing it closes its Redis client.
type fleetClient struct {
	*infergate.Client
	redis   *redisinfergate.Limiter
	rdb     *redis.Client
	refused sync.Map // window start (Unix ms) → *atomic.Int64 of 429 answers
}

func newFleetClient(p fleetParams, opts ...infergate.Option) (*fleetClient, error) {
	fc := &fleetClient{}
	var limiter infergate.Limiter = infergate.NewLimiter(p.Quotas)
	if p.Redis != "" {
		fc.rdb = redis.NewClient(&redis.Options{Addr: p.Redis})
		fc.redis = redisinfergate.NewLimiter(fc.rdb, p.Quotas, redisinfergate.WithPrefix(p.Prefix),
			redisinfergate.WithLeaseTime(p.Lease))
		limiter = fc.redis
	}
	window := p.Quotas.Groups[0].Quota.Window
	count429 := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		resp, err := next(req)
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			at := windowStart(time.Now(), window)
			n, _ := fc.refused.LoadOrStore(at, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
		}
		return resp, err
	}
	base := []infergate.Option{infergate.WithBaseURL(p.URL), infergate.WithAPIKey(gatewaytest.DefaultAPIKey),
		infergate.WithLimiter(limiter), infergate.WithMiddleware(count429)}
	if p.Cooldown > 0 {
		base = append(base, infergate.WithModelCooldown(p.Cooldown))
		if fc.rdb != nil {
			base = append(base, infergate.WithCooldownStore(redisinfergate.NewCooldownStore(fc.rdb, redisinfergate.WithPrefix(p.Prefix))))
		}
	}
	c, err := infergate.NewClient(append(base, opts...)...)
	if err != nil {
		fc.Close()
		return nil, err
	}
	fc.Client = c
	return fc, nil
}

func (fc *fleetClient) Close() {
	if fc.rdb != nil {
		fc.rdb.Close()
	}
}

// report fills in what the client counted.
func (fc *fleetClient) report(rep *processReport) {
	rep.Answers429 = map[int64]int{}
	fc.refused.Range(func(at, n any) bool {
		rep.Answers429[at.(int64)] = int(n.(*atomic.Int64).Load())
		return true
	})
	if fc.redis != nil {
		rep.Unlimited = fc.redis.Unlimited()
	}
}

// windowStart is the Unix millisecond at which the window of length w holding t starts, aligned on
// the epoch as the gateway aligns it.
func windowStart(t time.Time, w time.Duration) int64 {
	ms := t.UnixMilli()
	return ms - ms%w.Milliseconds()
}

func question(text string) infergate.ChatRequest {
	return infergate.ChatRequest{Model: fleetModel, Messages: []infergate.Message{infergate.UserMessage(text)}}
}

// runCalls calls from p.Start to p.End on p.Goroutines goroutines, each a call after the other.
func runCalls(p fleetParams) (processReport, error) {
	fc, err := newFleetClient(p)
	if err != nil {
		return processReport{}, err
	}
	defer fc.Close()
	if p.Start.IsZero() {
		// Ready: the test waits for every process of the fleet before it gives them their start,
		// in Unix milliseconds, so that a process slow to start on a loaded machine is not late.
		fmt.Println(readyLine)
		var ms int64
		if _, err := fmt.Scanln(&ms); err != nil {
			return processReport{}, fmt.Errorf("reading the start: %w", err)
		}
		p.Start = time.UnixMilli(ms)
		p.End = p.Start.Add(p.Duration)
	}
	time.Sleep(time.Until(p.Start)) // the processes start together; a real process has no other clock
	ctx, cancel := context.WithDeadline(context.Background(), p.End)
	defer cancel()
	var started, finished, ok, refused, ended, failed atomic.Int64
	var mu sync.Mutex
	var errs []string
	var wg sync.WaitGroup
	for range p.Goroutines {
		wg.Go(func() {
			for ctx.Err() == nil {
				started.Add(1)
				_, err := fc.Chat.Create(ctx, question("Say hello."))
				finished.Add(1)
				var apiErr *infergate.APIError
				switch {
				case err == nil:
					ok.Add(1)
				case ctx.Err() != nil:
					ended.Add(1)
				case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusTooManyRequests:
					refused.Add(1)
				default:
					failed.Add(1)
					mu.Lock()
					if len(errs) < 5 {
						errs = append(errs, err.Error())
					}
					mu.Unlock()
				}
			}
		})
	}
	// A call that never ends is a lost call: the report says so (Started > Finished) rather than
	// the process hanging.
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(time.Until(p.End) + 30*time.Second):
	}
	rep := processReport{Started: started.Load(), Finished: finished.Load(), OK: ok.Load(), Refused: refused.Load(),
		Ended: ended.Load(), Failed: failed.Load(), Errors: errs}
	fc.report(&rep)
	return rep, nil
}

// runHold sends p.Goroutines calls that the fake holds open, and waits until p.End: the test kills
// the process before then.
func runHold(p fleetParams) error {
	fc, err := newFleetClient(p)
	if err != nil {
		return err
	}
	defer fc.Close()
	ctx, cancel := context.WithDeadline(context.Background(), p.End)
	defer cancel()
	var wg sync.WaitGroup
	for range p.Goroutines {
		wg.Go(func() { fc.Chat.Create(ctx, question(holdQuestion)) })
	}
	wg.Wait()
	return errors.New("not killed before the end")
}

// runCooldown makes p.Calls calls one after the other, falling back to fallbackModel, with a
// cooldown shared through Redis when p names one.
func runCooldown(p fleetParams) (processReport, error) {
	fc, err := newFleetClient(p, infergate.WithFallbackModels(fallbackModel))
	if err != nil {
		return processReport{}, err
	}
	defer fc.Close()
	var rep processReport
	for range p.Calls {
		var info infergate.ResponseInfo
		begun := time.Now()
		rep.Started++
		c, err := fc.Chat.Create(context.Background(), question("Say hello."), infergate.WithResponseInfo(&info))
		rep.Finished++
		if err != nil {
			rep.Failed++
			rep.Errors = append(rep.Errors, err.Error())
			continue
		}
		rep.OK++
		call := callReport{Took: time.Since(begun), Served: c.Model}
		for _, a := range info.Fallbacks {
			if a.Model == fleetModel {
				call.Skipped = errors.Is(a.Err, infergate.ErrModelCooling)
				call.Tried = !call.Skipped
			}
		}
		rep.Calls = append(rep.Calls, call)
	}
	return rep, nil
}

// fleetProcess is a fleet process the test started.
type fleetProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout bytes.Buffer // written until done is closed
	stderr bytes.Buffer
	ready  chan struct{} // closed when the process says readyLine
	done   chan struct{}
	err    error // Wait's
}

// startProcess starts the test binary as a process of role, told p.
func startProcess(t *testing.T, role string, p fleetParams) *fleetProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	params, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	fp := &fleetProcess{ready: make(chan struct{}), done: make(chan struct{})}
	// -test.run matches no test: the process is its role, which TestMain starts before any test.
	fp.cmd = exec.Command(exe, "-test.run=^$")
	fp.cmd.Env = append(os.Environ(), roleEnv+"="+role, paramsEnv+"="+string(params))
	fp.cmd.Stderr = &fp.stderr
	out, err := fp.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if fp.stdin, err = fp.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := fp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		lines := bufio.NewScanner(out)
		lines.Buffer(nil, 1<<20)
		said := false
		for lines.Scan() {
			if lines.Text() == readyLine && !said {
				said = true
				close(fp.ready)
			}
			fp.stdout.Write(append(lines.Bytes(), '\n'))
		}
		fp.err = fp.cmd.Wait()
		close(fp.done)
	}()
	t.Cleanup(func() {
		fp.cmd.Process.Kill()
		<-fp.done
	})
	return fp
}

// start tells a ready process its start.
func (fp *fleetProcess) start(at time.Time) error {
	_, err := fmt.Fprintln(fp.stdin, at.UnixMilli())
	return err
}

// report waits for the process's end and returns its report; an error when it failed or did not
// report, with what it wrote on stderr (a panic's trace, say).
func (fp *fleetProcess) report(timeout time.Duration) (processReport, error) {
	select {
	case <-fp.done:
	case <-time.After(timeout):
		fp.cmd.Process.Kill()
		<-fp.done
		return processReport{}, fmt.Errorf("process did not end within %v; stderr:\n%s", timeout, fp.stderr.String())
	}
	if fp.err != nil {
		return processReport{}, fmt.Errorf("process: %v; stderr:\n%s", fp.err, fp.stderr.String())
	}
	lines := bufio.NewScanner(&fp.stdout)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		if line, ok := strings.CutPrefix(lines.Text(), reportPrefix); ok {
			var rep processReport
			err := json.Unmarshal([]byte(line), &rep)
			return rep, err
		}
	}
	return processReport{}, fmt.Errorf("process did not report; stdout:\n%s\nstderr:\n%s", fp.stdout.String(), fp.stderr.String())
}
