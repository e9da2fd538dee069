package main

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
)

// endless is a stdin that never ends (as /dev/zero or a log being written), up to a limit that
// keeps a test of unbounded reading from running out of memory; it counts what was read.
type endless struct {
	read, limit int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := min(int64(len(p)), e.limit-atomic.LoadInt64(&e.read))
	if n <= 0 {
		return 0, io.EOF
	}
	for i := range p[:n] {
		p[i] = 'a'
	}
	atomic.AddInt64(&e.read, n)
	return int(n), nil
}

// TestStdinBound: chat and embed read at most maxStdin bytes of stdin, and refuse more with a
// usage error that gives the bound, sending nothing.
func TestStdinBound(t *testing.T) {
	t.Parallel()
	want := "stdin holds more than 8 MiB, the most it is read for"
	for _, tt := range []struct {
		args []string
		term terminals
	}{
		{args: []string{"chat"}},
		{args: []string{"embed"}},
		{args: []string{"chat"}, term: terminals{in: true}}, // a conversation's line
	} {
		t.Run(strings.Join(tt.args, " ")+map[bool]string{true: " on a terminal"}[tt.term.in], func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			in := &endless{limit: 4 * maxStdin}
			c.in, c.term = in, tt.term
			r := c.run(context.Background(), tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, want) {
				t.Errorf("%s with an endless stdin = %d, %q; want exit status %d and %q", tt.args, r.code, r.stderr, exitUsage, want)
			}
			if read := atomic.LoadInt64(&in.read); read > 2*maxStdin {
				t.Errorf("%d bytes of stdin read, want at most about %d", read, maxStdin)
			}
			if n := len(c.srv.Requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// TestStdinAtTheBound: stdin of exactly maxStdin bytes is read whole.
func TestStdinAtTheBound(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.stdin = strings.Repeat("a", maxStdin-1) + "\n"
	if r := c.run(context.Background(), "chat"); r.code != exitOK {
		t.Fatalf("chat with %d bytes of stdin = %+v", maxStdin, r)
	}
	last, _ := c.srv.LastRequest()
	if msgs, _ := last.JSON["messages"].([]any); len(msgs) != 1 || len(msgs[0].(map[string]any)["content"].(string)) != maxStdin-1 {
		t.Errorf("chat sent %d bytes, want the whole message", len(last.Body))
	}
}

// TestHelpGivesTheStdinBound: the help of chat and embed says how much of stdin they read.
func TestHelpGivesTheStdinBound(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"chat", "embed"} {
		r := newCLI(t).run(context.Background(), name, "--help")
		if r.code != exitOK || !strings.Contains(r.stdout, "Stdin is read up to 8 MiB") || !strings.Contains(r.stdout, "more is refused with exit status 2.") {
			t.Errorf("%s --help = %+v, want the bound on stdin", name, r)
		}
	}
}
