package batch_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/infergate/infergate-go/batch"
)

// TestOutputLinkedToTheInputIsRefused names the input as the output through a symbolic link and
// through a hard link: the run is refused before the output is read or written, and the input is
// left whole, even with RetryFailed (which would otherwise read the requests as failed results and
// write the file again without them).
func TestOutputLinkedToTheInputIsRefused(t *testing.T) {
	t.Parallel()
	for _, link := range []struct {
		name string
		make func(oldname, newname string) error
	}{{"symlink", os.Symlink}, {"hard link", os.Link}} {
		t.Run(link.name, func(t *testing.T) {
			t.Parallel()
			in, _ := files(t, chatLines(ids(3))...)
			before, _ := os.ReadFile(in)
			out := filepath.Join(filepath.Dir(in), "out.jsonl")
			if err := link.make(in, out); err != nil {
				t.Skip(err)
			}
			f := &fake{}
			_, err := batch.Run(context.Background(), serve(t, f), batch.Job{Input: in, Output: out, RetryFailed: true})
			if err == nil || !strings.Contains(err.Error(), "input") {
				t.Errorf("Run = %v, want the output refused as the input", err)
			}
			if after, _ := os.ReadFile(in); string(after) != string(before) {
				t.Errorf("the input became %q", after)
			}
			if n := len(f.requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}

// TestRunThatCannotGoOnIsNotInterrupted changes the input while the run sends it: the run stops
// with an error that says so, and its summary does not claim that ctx ended.
func TestRunThatCannotGoOnIsNotInterrupted(t *testing.T) {
	t.Parallel()
	lines := chatLines(ids(5))
	for i := range lines { // past the line reader's buffer, so that the end is read late
		lines[i] = strings.Replace(lines[i], `"model"`, `"padding":"`+strings.Repeat("x", 30_000)+`","model"`, 1)
	}
	in, out := files(t, lines...)
	var once sync.Once
	f := &fake{decide: func(text string, attempt int) (int, http.Header) {
		once.Do(func() {
			changed := append(lines[:len(lines)-1:len(lines)-1], chatLine("new", "new"))
			os.WriteFile(in, []byte(strings.Join(changed, "\n")+"\n"), 0o644)
		})
		return http.StatusOK, nil
	}}
	sum, err := batch.Run(context.Background(), serve(t, f), batch.Job{Input: in, Output: out, Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "changed since it was checked") {
		t.Fatalf("Run = %v, want the changed input reported", err)
	}
	if sum == nil || sum.Interrupted {
		t.Errorf("summary %+v, want one that is not Interrupted: ctx did not end", sum)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, a cancellation", err)
	}
}

// TestSpacesAtTheEndOfTheOutputAreCut resumes an output that ends in white space after its last
// newline (U+00A0 among it, which JSON does not take for white space): the spaces are cut before
// the results that follow, so that each line of the output is a JSON object for any reader.
func TestSpacesAtTheEndOfTheOutputAreCut(t *testing.T) {
	t.Parallel()
	names := ids(3)
	in, out := files(t, chatLines(names)...)
	if _, err := batch.Run(context.Background(), serve(t, &fake{}), batch.Job{Input: in, Output: out}); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(out)
	lines := strings.SplitAfter(string(whole), "\n")
	if err := os.WriteFile(out, []byte(lines[0]+" \u00a0\t"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := batch.Run(context.Background(), serve(t, &fake{}), batch.Job{Input: in, Output: out}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	for i, line := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
		if !strings.HasPrefix(line, "{") || !json.Valid([]byte(line)) {
			t.Errorf("output line %d is %q, want a JSON object", i+1, line)
		}
	}
	if n := len(byID(t, results(t, out))); n != len(names) {
		t.Errorf("%d results for %d requests", n, len(names))
	}
}
