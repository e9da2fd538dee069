package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// result is what one run of the tool left behind.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs the tool's commands in process against a gatewaytest server, the way a user with a key
// runs them against the real gateway: INFERGATE_API_KEY and INFERGATE_BASE_URL point at the fake.
type cli struct {
	srv   *gatewaytest.Server
	env   map[string]string
	stdin string
	in    io.Reader // stdin when set, in place of the string
	term  terminals
	// interrupts, when set, is where the test's Ctrl-C goes
	interrupts *interrupter
	clientOpts []infergate.Option // given to every client of the run
	clock      func() time.Time   // the app's clock; nil: gatewaytest.FixedTime, standing still
}

func newCLI(t *testing.T, opts ...gatewaytest.ServerOption) *cli {
	t.Helper()
	srv := gatewaytest.New(t, opts...)
	return &cli{srv: srv, env: map[string]string{
		"INFERGATE_API_KEY":  gatewaytest.DefaultAPIKey,
		"INFERGATE_BASE_URL": srv.URL(),
	}}
}

func (c *cli) run(ctx context.Context, args ...string) result {
	var stdout, stderr syncBuffer
	return c.runTo(ctx, &stdout, &stderr, args...)
}

func (c *cli) runTo(ctx context.Context, stdout, stderr *syncBuffer, args ...string) result {
	var stdin io.Reader = strings.NewReader(c.stdin)
	if c.in != nil {
		stdin = c.in
	}
	now := c.clock
	if now == nil {
		now = gatewaytest.FixedTime
	}
	a := &app{
		stdin: stdin, stdout: stdout, stderr: stderr,
		getenv: func(name string) string { return c.env[name] },
		now:    now,
		term:   c.term, interrupts: c.interrupts, clientOpts: c.clientOpts,
	}
	code := a.run(ctx, args)
	// The fake's address changes with every run: goldens name it GATEWAY.
	clean := func(s string) string { return strings.ReplaceAll(s, c.srv.URL(), "GATEWAY") }
	return result{stdout: clean(stdout.String()), stderr: clean(stderr.String()), code: code}
}

// syncBuffer is a buffer that the tool and a test may use from two goroutines, and that can
// report its first write.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	onWrite func()
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	hook := b.onWrite
	b.onWrite = nil
	b.mu.Unlock()
	if hook != nil {
		hook()
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// golden compares a run with testdata/name.golden, which holds the command line, the exit status,
// stdout and stderr; -update rewrites it.
func golden(t *testing.T, name string, args []string, r result) {
	t.Helper()
	got := fmt.Sprintf("$ infergate %s\nexit status %d\n--- stdout\n%s--- stderr\n%s",
		strings.Join(args, " "), r.code, r.stdout, r.stderr)
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// goldenCase is a command line whose whole output is a golden file.
type goldenCase struct {
	name  string
	args  []string
	opts  []gatewaytest.ServerOption
	term  terminals
	stdin string
	setup func(*gatewaytest.Server)
}

func runGolden(t *testing.T, tests []goldenCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, tt.opts...)
			c.term, c.stdin = tt.term, tt.stdin
			if tt.setup != nil {
				tt.setup(c.srv)
			}
			golden(t, tt.name, tt.args, c.run(context.Background(), tt.args...))
		})
	}
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	runGolden(t, []goldenCase{
		{name: "help", args: []string{"help"}},
		{name: "no-arguments", args: []string{}},
		{name: "help-of-a-command", args: []string{"bids", "--help"}},
		{name: "unknown-command", args: []string{"modles"}},
		{name: "unknown-flag", args: []string{"models", "--colour"}},
		{name: "missing-argument", args: []string{"bids"}},
		{name: "too-many-arguments", args: []string{"balance", "now"}},
		{name: "bad-base-url", args: []string{"models", "--base-url", "ftp://nowhere"}},
		{name: "unauthorized", args: []string{"models"}, opts: []gatewaytest.ServerOption{gatewaytest.WithAcceptedAPIKey("sk-other")}},
	})
}

// TestWithoutAKeyOrAnAddressTheFakeAnswers: with neither a key nor an address, the built-in fake
// answers, and stderr says so.
func TestWithoutAKeyOrAnAddressTheFakeAnswers(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.env = map[string]string{}
	r := c.run(context.Background(), "models", "--json")
	if r.code != exitOK || !strings.Contains(r.stdout, `"llama-3.3-70b"`) {
		t.Fatalf("models without a key = %+v", r)
	}
	if want := "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the test's gateway, want none", n)
	}
}

func TestBaseURLFlag(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	elsewhere := gatewaytest.New(t)
	r := c.run(context.Background(), "health", "--base-url", elsewhere.URL())
	if r.code != exitOK || len(elsewhere.Requests()) != 1 || len(c.srv.Requests()) != 0 {
		t.Fatalf("health --base-url = %+v; %d requests there, %d at INFERGATE_BASE_URL",
			r, len(elsewhere.Requests()), len(c.srv.Requests()))
	}
}

func TestFlagsAnywhere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"MODEL", "--duration", "2h"}, []string{"MODEL"}},
		{[]string{"--duration", "2h", "MODEL"}, []string{"MODEL"}},
		{[]string{"--", "--duration"}, []string{"--duration"}},
		{[]string{"-", "--json"}, []string{"-"}},
	}
	for _, tt := range tests {
		a := &app{}
		f := a.newFlags("bids")
		f.Duration("duration", 0, "")
		got, err := f.parse(tt.args, 0, -1)
		if err != nil {
			t.Fatalf("parse(%q): %v", tt.args, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parse(%q) arguments (-want +got):\n%s", tt.args, diff)
		}
	}
}
