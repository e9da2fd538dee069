// Package leakcheck finds goroutines that tests left behind, for the TestMain of each package.
package leakcheck

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Run is the body of a TestMain, os.Exit(leakcheck.Run(m)): Main with the stacks of the goroutines
// left behind printed to standard error.
func Run(m interface{ Run() int }) int {
	return Main(m.Run, func(leaked []string) {
		fmt.Fprintf(os.Stderr, "goroutines left behind by the tests:\n\n%s\n", strings.Join(leaked, "\n\n"))
	})
}

// Main is the body of a TestMain: it runs the tests and, when they passed, fails the run if
// goroutines they started are still running after limit.
func Main(run func() int, report func(leaked []string)) int {
	code := run()
	if code == 0 {
		if leaked := Leaked(5 * time.Second); len(leaked) > 0 {
			report(leaked)
			code = 1
		}
	}
	return code
}

// Leaked waits up to limit for goroutines other than the caller's and the runtime's and testing's
// own to end, and returns the stacks of those still running. Idle keep-alive connections of the
// default transport are closed first: they belong to the pool, not to a call.
func Leaked(limit time.Duration) []string {
	deadline := time.Now().Add(limit)
	for {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		leaked := others()
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func others() []string {
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
		if i == 0 || slices.ContainsFunc(ignored, func(s string) bool { return strings.Contains(g, s) }) {
			continue // the first is the caller's
		}
		out = append(out, g)
	}
	return out
}

// ignored are goroutines that outlive tests by design.
var ignored = []string{
	"testing.(*M).",         // the test runner itself
	"testing.runFuzzing",    // the fuzzing engine
	"os/signal.signal_recv", // signal handling, started once per process
	"runtime.ensureSigM",    // likewise
}
