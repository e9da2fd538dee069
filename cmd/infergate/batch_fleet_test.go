package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/internal/redistest"
)

// TestBatchTwoMachinesShareTheQuota runs one file as two machines would, two processes of the
// built tool with --shard 0/2 and 1/2 and one Redis, against a fake that enforces a quota of 40
// requests in windows of 2 s, four windows' worth: every request is answered once, and the fake
// refuses none. Each process alone would send up to 40 a window, twice the quota.
func TestBatchTwoMachinesShareTheQuota(t *testing.T) {
	t.Parallel()
	redis, err := redistest.Start()
	if err != nil {
		redistest.Unavailable(t, err)
	}
	t.Cleanup(redis.Stop)
	const (
		total     = 160
		perWindow = 40
		window    = 2 * time.Second
	)
	var mu sync.Mutex
	answered := map[string]int{}
	srv := gatewaytest.New(t,
		gatewaytest.WithRateLimits(infergate.Quotas{Default: infergate.Quota{Requests: perWindow, Window: window}}),
		gatewaytest.WithClock(time.Now),
		gatewaytest.WithResponder(func(req gatewaytest.Request) gatewaytest.Reply {
			mu.Lock()
			answered[questionOf(req.Body)]++
			mu.Unlock()
			return gatewaytest.Reply{Content: "answer"}
		}))
	bin := buildTool(t)
	dir := t.TempDir()
	var lines []string
	for i := range total {
		lines = append(lines, chatLine(fmt.Sprint("r", i)))
	}
	input := writeLines(t, dir, "in.jsonl", lines...)
	quotas := writeLines(t, dir, "quotas.json", fmt.Sprintf(`{"default": {"requests": %d, "window": %q}}`, perWindow, window))

	// The processes start at the beginning of a window of the gateway's, which the limiter counts
	// on the same clock: starting late in a window, a process would have requests admitted in its
	// last milliseconds that reach the gateway in the next window, beyond its count.
	windowMillis := window.Milliseconds()
	next := time.UnixMilli((time.Now().UnixMilli()/windowMillis + 1) * windowMillis)
	<-time.After(time.Until(next))

	type run struct {
		cmd            *exec.Cmd
		output         string
		stdout, stderr strings.Builder
	}
	var runs []*run
	for i := range 2 {
		r := &run{output: filepath.Join(dir, fmt.Sprintf("out-%d.jsonl", i))}
		r.cmd = batchCommand(bin, srv.URL(), input, "-o", r.output, "--shard", fmt.Sprintf("%d/2", i),
			"--concurrency", "8", "--quotas", quotas, "--redis", "redis://"+redis.Addr, "--json")
		r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	all := map[string]bool{}
	for i, r := range runs {
		var summary batchSummaryJSON
		code := exitCode(t, r.cmd.Wait())
		if err := json.Unmarshal([]byte(r.stdout.String()), &summary); err != nil || code != exitOK || summary.Succeeded != summary.Total {
			t.Errorf("shard %d/2: exit status %d, summary %s (%v)\n%s", i, code, r.stdout.String(), err, r.stderr.String())
		}
		for id, res := range readResults(t, r.output) {
			if all[id] || !succeeded(res) {
				t.Errorf("%s: a second result, or a failure: %+v", id, res)
			}
			all[id] = true
		}
	}
	if len(all) != total {
		t.Errorf("%d results, want %d", len(all), total)
	}
	mu.Lock()
	defer mu.Unlock()
	admitted := 0
	for id, n := range answered {
		admitted += n
		if n != 1 {
			t.Errorf("%s answered %d times, want once", id, n)
		}
	}
	refused := 0
	for _, req := range srv.Requests() {
		if strings.HasSuffix(req.Path, "/chat/completions") {
			refused++
		}
	}
	if refused -= admitted; refused != 0 {
		t.Errorf("the fake refused %d requests with a 429, want none", refused)
	}
}
