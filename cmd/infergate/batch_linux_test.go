package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/gatewaytest"
)

// unboundedQuotas is a --quotas file that bounds nothing, so that a test's hundreds of requests
// are not held to the deployed gateway's quota of the fake's model.
const unboundedQuotas = `{"default": {}}`

// batchCommand is the built tool running batch against the fake at url.
func batchCommand(bin, url string, args ...string) *exec.Cmd {
	cmd := toolCommand(bin, append([]string{"batch"}, args...)...)
	cmd.Env = append(cmd.Env, "INFERGATE_BASE_URL="+url, "INFERGATE_API_KEY="+gatewaytest.DefaultAPIKey)
	return cmd
}

// exitCode is the exit status of a command that ran, and fails the test for one that did not.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// completeResults reads the whole lines of an output that a killed process may have left torn,
// by custom_id.
func completeResults(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for len(data) > 0 {
		line, rest, whole := bytes.Cut(data, []byte("\n"))
		data = rest
		var r batch.Result
		if whole && json.Unmarshal(line, &r) == nil {
			ids[r.CustomID] = true
		}
	}
	return ids
}

// terminalScreen is what a pseudo-terminal's controller reads, as it comes; shows is closed once
// it holds want.
type terminalScreen struct {
	mu    sync.Mutex
	read  strings.Builder
	want  string
	shows chan struct{}
	ended chan struct{} // closed when the terminal's last other end is closed
}

func readScreen(controller io.Reader, want string) *terminalScreen {
	s := &terminalScreen{want: want, shows: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		buf := make([]byte, 4096)
		for {
			n, err := controller.Read(buf) // ends with EIO once the tool has exited
			s.mu.Lock()
			before := strings.Contains(s.read.String(), s.want)
			s.read.Write(buf[:n])
			if !before && s.want != "" && strings.Contains(s.read.String(), s.want) {
				close(s.shows)
			}
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *terminalScreen) String() string {
	<-s.ended
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read.String()
}

// TestBatchAtATerminal runs the built tool with stderr a pseudo-terminal: the progress is a bar
// redrawn on one line, which the summary replaces; a Ctrl-C stops the run with exit status 130,
// and the same command resumes it.
func TestBatchAtATerminal(t *testing.T) {
	t.Parallel()
	bin := buildTool(t)
	const total = 40
	arrived, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	answered := 0
	holdAt := 0 // the request the fake holds until the test lets it go; 0 for none
	srv := gatewaytest.New(t, gatewaytest.WithResponder(func(gatewaytest.Request) gatewaytest.Reply {
		mu.Lock()
		answered++
		hold := answered == holdAt
		mu.Unlock()
		if hold {
			close(arrived)
			<-release
		}
		return gatewaytest.Reply{Content: "answer"}
	}))
	dir := t.TempDir()
	var lines []string
	for i := range total {
		lines = append(lines, chatLine(fmt.Sprint("r", i)))
	}
	input := writeLines(t, dir, "in.jsonl", lines...)
	quotas := writeLines(t, dir, "quotas.json", unboundedQuotas)

	// start starts the tool with stderr the terminal.
	start := func(t *testing.T, output, want string) (*exec.Cmd, *terminalScreen) {
		t.Helper()
		controller, terminal := openPTY(t)
		cmd := batchCommand(bin, srv.URL(), input, "-o", output, "--concurrency", "1", "--quotas", quotas)
		cmd.Stderr = terminal
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() }) // when the test fails before the tool ends
		terminal.Close()                             // the tool's is the only one left: its end ends the reading
		return cmd, readScreen(controller, want)
	}
	bar := regexp.MustCompile(`\r\x1b\[K\d+/40 `)

	t.Run("a bar, then the summary", func(t *testing.T) {
		output := filepath.Join(dir, "bar.jsonl")
		cmd, screen := start(t, output, "")
		code := exitCode(t, cmd.Wait())
		shown := screen.String()
		bars := bar.FindAllStringIndex(shown, -1)
		last := strings.LastIndex(shown, clearLine+"40/40 100%")
		summary := strings.Index(shown, clearLine+"batch: 40 requests: 40 succeeded, 0 failed")
		if code != exitOK || len(bars) < 2 || last != bars[len(bars)-1][0] || summary < last {
			t.Errorf("exit status %d; the terminal showed %q; want the bar redrawn to 40/40, then cleared for the summary", code, shown)
		}
		if len(readResults(t, output)) != total {
			t.Errorf("want %d results", total)
		}
	})

	t.Run("Ctrl-C, then resumed", func(t *testing.T) {
		output := filepath.Join(dir, "interrupted.jsonl")
		mu.Lock()
		holdAt = answered + 5
		mu.Unlock()
		cmd, screen := start(t, output, "batch: stopping")
		<-arrived // the fifth request is in flight
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		select {
		case <-screen.shows: // the tool has taken the Ctrl-C: it sends nothing more
		case <-screen.ended:
			t.Fatalf("the tool ended without saying it stops: %q", screen.String())
		}
		close(release)
		code := exitCode(t, cmd.Wait())
		if shown := screen.String(); code != exitInterrupted || !strings.Contains(shown, "run the same command again to resume") {
			t.Fatalf("exit status %d, the terminal showed %q; want 130 and how to resume", code, shown)
		}
		if got := len(completeResults(t, output)); got != 5 {
			t.Errorf("%d results after Ctrl-C, want the 5 sent, the one in flight included", got)
		}
		cmd, screen = start(t, output, "")
		code = exitCode(t, cmd.Wait())
		if shown := screen.String(); code != exitOK || !strings.Contains(shown, "40 succeeded, 0 failed (5 found in the output, 35 sent)") {
			t.Errorf("resumed: exit status %d, the terminal showed %q; want the 35 left sent", code, shown)
		}
	})
}

// TestBatchKilledAndResumed kills the built tool with SIGKILL at 20 random points of a run and
// resumes it each time: in the end the output holds one successful result per custom_id; a
// request whose result was in the output at a kill is never sent again; a request sent more than
// once was sent by runs that were killed, but for the one whose answer is in the output; and every
// sending of a request carries the same Idempotency-Key. Each run has an API key of its own, so
// that the fake knows which run sent what, even a request it reads after the run was killed. The
// fake takes a few milliseconds to answer, so that several requests are in flight at a kill.
func TestBatchKilledAndResumed(t *testing.T) {
	t.Parallel()
	const (
		total   = 400
		kills   = 20
		latency = 2 * time.Millisecond
	)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	random := rand.New(rand.NewPCG(uint64(seed), 0))
	keyOf := func(run int) string { return fmt.Sprintf("sk-run-%02d", run) }
	var keys []string
	for run := range kills + 1 {
		keys = append(keys, keyOf(run))
	}

	type sending struct {
		id, key string
		run     int
	}
	var mu sync.Mutex
	var sent []sending
	seen := map[int]int{} // requests the fake read, by run
	current, killAt := 0, 0
	reached := make(chan struct{}, 1)
	srv := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKeys(keys...), gatewaytest.WithResponder(func(req gatewaytest.Request) gatewaytest.Reply {
		run := slices.Index(keys, strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "))
		mu.Lock()
		sent = append(sent, sending{questionOf(req.Body), req.Header.Get("Idempotency-Key"), run})
		seen[run]++
		if run == current && seen[run] == killAt {
			reached <- struct{}{}
		}
		mu.Unlock()
		time.Sleep(latency) // the fake's time to answer, not the test waiting
		return gatewaytest.Reply{Content: fmt.Sprintf("answered to run %d", run)}
	}))
	bin := buildTool(t)
	dir := t.TempDir()
	var lines []string
	for i := range total {
		lines = append(lines, chatLine(fmt.Sprint("r", i)))
	}
	input := writeLines(t, dir, "in.jsonl", lines...)
	quotas := writeLines(t, dir, "quotas.json", unboundedQuotas)
	output := filepath.Join(dir, "out.jsonl")
	command := func(run int) *exec.Cmd {
		cmd := toolCommand(bin, "batch", input, "-o", output, "--concurrency", "8", "--quotas", quotas)
		cmd.Env = append(cmd.Env, "INFERGATE_BASE_URL="+srv.URL(), "INFERGATE_API_KEY="+keyOf(run))
		return cmd
	}

	killed := map[int]bool{}
	resultsAtKill := map[int]map[string]bool{} // the whole result lines once run was killed
	for run := range kills {
		mu.Lock()
		current, killAt = run, 1+random.IntN(30)
		mu.Unlock()
		cmd := command(run)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-reached:
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-exited
			killed[run] = true
			resultsAtKill[run] = completeResults(t, output)
		case err := <-exited: // fewer requests were left than the kill waited for
			if code := exitCode(t, err); code != exitOK {
				t.Fatalf("run %d ended by itself with exit status %d:\n%s", run, code, stderr.String())
			}
		}
	}
	mu.Lock()
	current = kills
	mu.Unlock()
	if out, err := command(kills).CombinedOutput(); exitCode(t, err) != exitOK {
		t.Fatalf("the last run: %v\n%s", err, out)
	}

	results := readResults(t, output)
	if len(results) != total {
		t.Errorf("%d results, want %d", len(results), total)
	}
	answeredBy := map[string]int{}
	for id, r := range results {
		var completion struct {
			Choices []struct{ Message struct{ Content string } }
		}
		if !succeeded(r) || json.Unmarshal(r.Response.Body, &completion) != nil || len(completion.Choices) != 1 {
			t.Errorf("result of %s = %+v, want a completion", id, r)
			continue
		}
		var run int
		if _, err := fmt.Sscanf(completion.Choices[0].Message.Content, "answered to run %d", &run); err != nil {
			t.Errorf("result of %s answers %q", id, completion.Choices[0].Message.Content)
		}
		answeredBy[id] = run
	}
	mu.Lock()
	defer mu.Unlock()
	sendings := map[string][]sending{}
	for _, s := range sent {
		sendings[s.id] = append(sendings[s.id], s)
		for run, ids := range resultsAtKill {
			if s.run > run && ids[s.id] {
				t.Errorf("%s was sent by run %d, though its result was in the output when run %d was killed", s.id, s.run, run)
			}
		}
	}
	again := 0
	for id, ss := range sendings {
		if len(ss) > 1 {
			again++
		}
		for _, s := range ss {
			if s.key != ss[0].key || s.key == "" {
				t.Errorf("%s was sent with the Idempotency-Keys %q and %q, want one", id, ss[0].key, s.key)
			}
			if s.run != answeredBy[id] && !killed[s.run] {
				t.Errorf("%s was sent by run %d, which was not killed, and answered to run %d", id, s.run, answeredBy[id])
			}
		}
	}
	t.Logf("%d requests sent for %d custom_ids in %d runs, %d killed; %d sent more than once", len(sent), len(sendings), kills+1, len(killed), again)
}

// TestBatchOutputInUse: a run on an output that another run holds (here the test, holding the
// lock a run takes) is refused with exit status 1, a message that says so, nothing sent and the
// output untouched.
func TestBatchOutputInUse(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	input := writeLines(t, dir, "in.jsonl", chatLine("a"))
	output := filepath.Join(dir, "out.jsonl")
	held, err := os.Create(output)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	r := c.run(context.Background(), "batch", input, "-o", output)
	if r.code != exitFailed || !strings.Contains(r.stderr, "another run is writing the output") {
		t.Errorf("run = %+v, want exit status 1 and the output said to be in use", r)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
	if data, _ := os.ReadFile(output); len(data) != 0 {
		t.Errorf("the output holds %q, want it untouched", data)
	}
}
