package batch_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/batch"
)

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("q%02d", i)
	}
	return out
}

func chatLines(names []string) []string {
	lines := make([]string, len(names))
	for i, id := range names {
		lines[i] = chatLine(id, id)
	}
	return lines
}

// TestResumeSendsOnlyWhatHasNoResult cuts a finished output to its first lines, a torn half line
// and a result for an id the input does not have, and runs again: only the requests without a
// whole result are sent, with the keys of the first run; the torn line is gone, the foreign one
// kept, and each id has one result.
func TestResumeSendsOnlyWhatHasNoResult(t *testing.T) {
	t.Parallel()
	names := ids(20)
	in, out := files(t, chatLines(names)...)
	first := &fake{}
	if _, err := batch.Run(context.Background(), serve(t, first), batch.Job{Input: in, Output: out, Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(out)
	lines := strings.SplitAfter(string(whole), "\n")
	foreign := `{"id":"batch_req_x","custom_id":"ghost","response":{"status_code":200,"request_id":"r","body":{}},"error":null}` + "\n"
	kept := strings.Join(lines[:8], "") + foreign
	if err := os.WriteFile(out, []byte(kept+lines[8][:len(lines[8])/2]), 0o644); err != nil {
		t.Fatal(err)
	}

	second := &fake{}
	sum, err := batch.Run(context.Background(), serve(t, second), batch.Job{Input: in, Output: out, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total != 20 || sum.Resumed != 8 || sum.Sent != 12 || sum.Succeeded != 20 {
		t.Errorf("summary %+v", sum.Progress)
	}
	got, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(got), kept) {
		t.Errorf("the output's whole lines were changed")
	}
	rs := byID(t, results(t, out))
	if len(rs) != 21 || rs["ghost"].ID != "batch_req_x" {
		t.Errorf("%d results, ghost %+v", len(rs), rs["ghost"])
	}
	firstKeys := map[string]string{}
	for _, s := range first.requests() {
		firstKeys[s.text] = s.key
	}
	var resent []string
	for _, s := range second.requests() {
		resent = append(resent, s.text)
		if s.key != firstKeys[s.text] || !strings.HasPrefix(s.key, "infergate-batch-") {
			t.Errorf("%s: key %q, first run's %q", s.text, s.key, firstKeys[s.text])
		}
	}
	slices.Sort(resent)
	if !slices.Equal(resent, names[8:]) {
		t.Errorf("resent %v, want %v", resent, names[8:])
	}
}

// TestLastResultWithoutNewlineIsKept finds a whole result lacking its newline at the end of the
// output, which it completes rather than sending its request again.
func TestLastResultWithoutNewlineIsKept(t *testing.T) {
	t.Parallel()
	in, out := files(t, chatLines(ids(3))...)
	if _, err := batch.Run(context.Background(), serve(t, &fake{}), batch.Job{Input: in, Output: out}); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(out)
	os.WriteFile(out, whole[:len(whole)-1], 0o644)
	f := &fake{}
	sum, err := batch.Run(context.Background(), serve(t, f), batch.Job{Input: in, Output: out})
	if err != nil || sum.Sent != 0 || sum.Resumed != 3 {
		t.Fatalf("%+v, %v", sum, err)
	}
	if got, _ := os.ReadFile(out); string(got) != string(whole) {
		t.Errorf("output\n%s\nwant\n%s", got, whole)
	}
}

// TestBadOutputLineIsRefused finds a line that is not a result before the last, and leaves the
// output alone.
func TestBadOutputLineIsRefused(t *testing.T) {
	t.Parallel()
	in, out := files(t, chatLines(ids(3))...)
	bad := "not a result\n" + `{"id":"x","custom_id":"q00","response":null,"error":null}` + "\n"
	os.WriteFile(out, []byte(bad), 0o644)
	f := &fake{}
	_, err := batch.Run(context.Background(), serve(t, f), batch.Job{Input: in, Output: out})
	var outErr *batch.OutputError
	if !errorsAs(err, &outErr) || outErr.Line != 1 {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(out); string(got) != bad || len(f.requests()) != 0 {
		t.Errorf("output changed or requests sent")
	}
}

// TestRetryFailedReplacesFailedResults fails some requests, then runs again without and with
// RetryFailed: without, nothing is sent; with, the failed ones are sent again and their results
// replace the failed lines.
func TestRetryFailedReplacesFailedResults(t *testing.T) {
	t.Parallel()
	names := ids(12)
	in, out := files(t, chatLines(names)...)
	failing := map[string]bool{"q01": true, "q05": true, "q11": true}
	f := &fake{decide: func(text string, attempt int) (int, http.Header) {
		if failing[text] && attempt == 1 {
			return http.StatusBadRequest, nil
		}
		return http.StatusOK, nil
	}}
	client := serve(t, f)
	sum, err := batch.Run(context.Background(), client, batch.Job{Input: in, Output: out})
	if err != nil || sum.Failed != 3 || sum.Succeeded != 9 {
		t.Fatalf("%+v, %v", sum, err)
	}
	rs := byID(t, results(t, out))
	if r := rs["q05"]; r.Succeeded() || r.Response.StatusCode != 400 || !strings.Contains(string(r.Response.Body), "no (400)") || r.Response.RequestID != "req-q05-1" {
		t.Errorf("failed result %+v", r.Response)
	}

	sum, err = batch.Run(context.Background(), client, batch.Job{Input: in, Output: out})
	if err != nil || sum.Sent != 0 || sum.Failed != 3 || sum.Resumed != 12 {
		t.Fatalf("without RetryFailed: %+v, %v", sum, err)
	}
	sum, err = batch.Run(context.Background(), client, batch.Job{Input: in, Output: out, RetryFailed: true})
	if err != nil || sum.Sent != 3 || sum.Failed != 0 || sum.Succeeded != 12 || sum.Resumed != 9 {
		t.Fatalf("with RetryFailed: %+v, %v", sum, err)
	}
	rs = byID(t, results(t, out))
	if len(rs) != 12 {
		t.Errorf("%d results", len(rs))
	}
	for id, r := range rs {
		if !r.Succeeded() {
			t.Errorf("%s still failed", id)
		}
	}
}
