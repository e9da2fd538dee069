//go:build e2e

// Package e2e_test runs temporalinfergate on a real Temporal server (the temporal command's
// development server, which devserver starts on loopback), with workers that are processes of
// their own, killed and started again in the middle of a tool loop.
package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/infergate/infergate-go/internal/leakcheck"
	"github.com/infergate/infergate-go/temporalinfergate/internal/devserver"
)

// TestMain stops the package's Temporal server after the tests, and fails the run if a test left
// a goroutine behind. A process a test started as a worker is that worker instead.
func TestMain(m *testing.M) {
	if env := os.Getenv(workerEnv); env != "" {
		os.Exit(runWorker(env))
	}
	os.Exit(leakcheck.Run(stopServerAfter{m}))
}

type stopServerAfter struct{ m *testing.M }

func (s stopServerAfter) Run() int {
	defer devserver.StopShared()
	return s.m.Run()
}

// readyTimeout bounds a worker's start: it dials the server and polls its task queue.
const readyTimeout = time.Minute

// workerProcess is a worker the test started.
type workerProcess struct {
	cmd    *exec.Cmd
	ready  chan struct{}
	done   chan struct{} // closed once the process has ended
	stderr bytes.Buffer  // read once done is closed
}

// startWorker starts a worker process and returns once it polls its task queue; the test's end
// kills it if it still runs.
func startWorker(t *testing.T, p workerParams) *workerProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	params, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	w := &workerProcess{ready: make(chan struct{}), done: make(chan struct{})}
	// -test.run matches no test: the process is a worker, which TestMain starts before any test.
	w.cmd = exec.Command(exe, "-test.run=^$")
	w.cmd.Env = append(os.Environ(), workerEnv+"="+string(params))
	w.cmd.Stderr = &w.stderr
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		lines := bufio.NewScanner(out)
		said := false
		for lines.Scan() {
			if lines.Text() == readyLine && !said {
				said = true
				close(w.ready)
			}
		}
		w.cmd.Wait()
	}()
	t.Cleanup(w.kill)
	select {
	case <-w.ready:
	case <-w.done:
		t.Fatalf("the worker ended before it was ready (%v):\n%s", w.cmd.ProcessState, w.stderr.String())
	case <-time.After(readyTimeout):
		w.kill()
		t.Fatalf("the worker was not ready within %v:\n%s", readyTimeout, w.stderr.String())
	}
	return w
}

// kill ends the worker with SIGKILL, as a crash or an OOM kill would: it finishes nothing it
// was doing, and tells the server nothing.
func (w *workerProcess) kill() {
	w.cmd.Process.Kill()
	<-w.done
}

// toolService is where the note tool of every worker reports each run: its start, then its end.
// A start of an id in hold waits until release(id), or until the worker that sent it dies.
type toolService struct {
	*httptest.Server
	mu      sync.Mutex
	starts  map[string]int
	dones   map[string]int
	held    map[string]chan struct{} // closed by release
	changed chan struct{}            // closed and replaced at each report
}

func newToolService(t *testing.T, hold ...string) *toolService {
	s := &toolService{starts: map[string]int{}, dones: map[string]int{}, held: map[string]chan struct{}{},
		changed: make(chan struct{})}
	for _, id := range hold {
		s.held[id] = make(chan struct{})
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *toolService) serve(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	s.mu.Lock()
	switch r.URL.Path {
	case "/start":
		s.starts[id]++
	case "/done":
		s.dones[id]++
	default:
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	close(s.changed)
	s.changed = make(chan struct{})
	gate := s.held[id]
	s.mu.Unlock()
	if r.URL.Path == "/start" && gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done(): // the worker died
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// release lets the starts of id go on, those waiting and those to come.
func (s *toolService) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.held[id])
	delete(s.held, id)
}

// runs returns the starts and ends reported so far, by id.
func (s *toolService) runs() (starts, dones map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	starts, dones = make(map[string]int, len(s.starts)), make(map[string]int, len(s.dones))
	for k, v := range s.starts {
		starts[k] = v
	}
	for k, v := range s.dones {
		dones[k] = v
	}
	return starts, dones
}

// await returns once cond holds of the reports, or fails the test after d.
func (s *toolService) await(t *testing.T, d time.Duration, what string, cond func(starts, dones map[string]int) bool) {
	t.Helper()
	deadline := time.After(d)
	for {
		s.mu.Lock()
		ok, changed := cond(s.starts, s.dones), s.changed
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			starts, dones := s.runs()
			t.Fatalf("%s: not within %v (starts %v, dones %v)", what, d, starts, dones)
		}
	}
}
