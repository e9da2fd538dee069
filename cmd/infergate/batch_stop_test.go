package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

// TestBatchThatCannotGoOnExitsOne: a run stopped by an error, not by Ctrl-C (here the input
// changed while it was sent), exits with status 1 and says why; its --json summary does not say
// interrupted.
func TestBatchThatCannotGoOnExitsOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for _, id := range []string{"a", "b", "c", "d", "e"} { // past the line reader's buffer, so that the end is read late
		lines = append(lines, strings.Replace(chatLine(id), `"model"`, `"padding":"`+strings.Repeat("x", 30_000)+`","model"`, 1))
	}
	input := writeLines(t, dir, "in.jsonl", lines...)
	var once sync.Once
	c := newCLI(t, gatewaytest.WithResponder(func(gatewaytest.Request) gatewaytest.Reply {
		once.Do(func() {
			changed := append(lines[:len(lines)-1:len(lines)-1], chatLine("new"))
			os.WriteFile(input, []byte(strings.Join(changed, "\n")+"\n"), 0o600)
		})
		return gatewaytest.Reply{Content: "yes"}
	}))
	r := c.run(context.Background(), "batch", input, "-o", filepath.Join(dir, "out.jsonl"), "--concurrency", "1", "--json")
	if r.code != exitFailed || !strings.Contains(r.stderr, "changed since it was checked") {
		t.Errorf("run = %+v, want exit status 1 and the reason", r)
	}
	var summary batchSummaryJSON
	if err := json.Unmarshal([]byte(r.stdout), &summary); err != nil || summary.Interrupted {
		t.Errorf("--json %q (%v), want a summary that is not interrupted", r.stdout, err)
	}
}
