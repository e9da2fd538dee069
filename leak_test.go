package infergate

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run if any test left a goroutine behind: a stream, a retry wait, a watchdog or
// a tool call that outlives its call is a leak a user's program would pay for.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := leakedGoroutines(5 * time.Second); len(leaked) > 0 {
			fmt.Fprintf(os.Stderr, "goroutines left behind by the tests:\n\n%s\n", strings.Join(leaked, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}

// leakedGoroutines waits up to limit for the goroutines the tests started to end, and returns the
// stacks of those still running. Idle keep-alive connections of the default transport are closed
// first: they belong to the pool, not to a call.
func leakedGoroutines(limit time.Duration) []string {
	deadline := time.Now().Add(limit)
	for {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		leaked := otherGoroutines()
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// otherGoroutines lists the stacks of goroutines other than this one and the runtime's and
// testing's own.
func otherGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 || slices.ContainsFunc(ignoredStacks, func(s string) bool { return strings.Contains(g, s) }) {
			continue // the first is this goroutine
		}
		out = append(out, g)
	}
	return out
}

// ignoredStacks are goroutines that outlive tests by design.
var ignoredStacks = []string{
	"testing.(*M).",         // the test runner itself
	"testing.runFuzzing",    // the fuzzing engine
	"os/signal.signal_recv", // signal handling, started once per process
	"runtime.ensureSigM",    // likewise
}
