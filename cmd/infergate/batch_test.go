package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/gatewaytest"
)

// chatLine is an input line asking the fake a question that names its custom_id, so that the
// fake's requests can be told apart (questionOf).
func chatLine(id string) string {
	return fmt.Sprintf(`{"custom_id":%q,"method":"POST","url":"/v1/chat/completions","body":{"model":"llama-3.3-70b","messages":[{"role":"user","content":"question %s"}]}}`, id, id)
}

// embeddingLine is an input line for the embeddings route, in its /api/v1 spelling.
func embeddingLine(id string) string {
	return fmt.Sprintf(`{"custom_id":%q,"method":"POST","url":"/api/v1/embeddings","body":{"model":"text-embedding-bge-m3","input":["question %s","again"]}}`, id, id)
}

var questionID = regexp.MustCompile(`question ([A-Za-z0-9-]+)`)

// questionOf is the custom_id a request to the fake was sent for.
func questionOf(body []byte) string {
	if m := questionID.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}

// writeLines writes a JSONL file into dir and returns its path.
func writeLines(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readResults reads an output file, and fails the test unless each custom_id has one line.
func readResults(t *testing.T, path string) map[string]batch.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results := map[string]batch.Result{}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 1<<20)
	for n := 1; scanner.Scan(); n++ {
		var r batch.Result
		if err := json.Unmarshal(scanner.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v: %q", path, n, err, scanner.Text())
		}
		if _, twice := results[r.CustomID]; twice {
			t.Errorf("%s:%d: a second result for %q", path, n, r.CustomID)
		}
		results[r.CustomID] = r
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return results
}

func succeeded(r batch.Result) bool {
	return r.Error == nil && r.Response != nil && r.Response.StatusCode == http.StatusOK
}

// sentByID counts the requests the fake received, by custom_id.
func sentByID(srv *gatewaytest.Server) map[string]int {
	sent := map[string]int{}
	for _, r := range srv.Requests() {
		if id := questionOf(r.Body); id != "" {
			sent[id]++
		}
	}
	return sent
}

// TestBatchRunsAndResumes: every line gets one result, chat completions and embeddings in both
// spellings of the route; a second run finds them all and sends nothing.
func TestBatchRunsAndResumes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	input := writeLines(t, dir, "in.jsonl", chatLine("a"), chatLine("b"), embeddingLine("c"), chatLine("d"))
	output := filepath.Join(dir, "out.jsonl")
	r := c.run(context.Background(), "batch", input, "-o", output, "--concurrency", "2")
	if r.code != exitOK || r.stdout != "" || !strings.Contains(r.stderr, "batch: 4 requests: 4 succeeded, 0 failed (0 found in the output, 4 sent)") {
		t.Fatalf("first run = %+v, want exit status 0 and the summary on stderr", r)
	}
	results := readResults(t, output)
	for _, id := range []string{"a", "b", "c", "d"} {
		if !succeeded(results[id]) {
			t.Errorf("result of %s = %+v, want a 200", id, results[id])
		}
	}
	if body := string(results["a"].Response.Body); !strings.Contains(body, "question a") {
		t.Errorf("a's answer %s, want the fake's answer to question a", body)
	}
	var vectors struct {
		Data []struct{ Index int } `json:"data"`
	}
	if err := json.Unmarshal(results["c"].Response.Body, &vectors); err != nil || len(vectors.Data) != 2 {
		t.Errorf("c's answer %s (%v), want two vectors", results["c"].Response.Body, err)
	}
	sent := len(c.srv.Requests())
	r = c.run(context.Background(), "batch", input, "--output", output)
	if r.code != exitOK || !strings.Contains(r.stderr, "4 succeeded, 0 failed (4 found in the output, 0 sent)") {
		t.Errorf("second run = %+v, want exit status 0 and nothing sent", r)
	}
	if now := len(c.srv.Requests()); now != sent {
		t.Errorf("the second run sent %d requests, want none", now-sent)
	}
	if got := readResults(t, output); len(got) != 4 {
		t.Errorf("%d results after the second run, want 4", len(got))
	}
}

// TestBatchFailedThenRetried: a request the gateway refuses fails the run (exit status 1) with
// its result written; --retry-failed sends it again and replaces that line.
func TestBatchFailedThenRetried(t *testing.T) {
	t.Parallel()
	c := newCLI(t, gatewaytest.WithFailures(1, gatewaytest.DetailErrorReply(http.StatusBadRequest, "no such thing")))
	dir := t.TempDir()
	input := writeLines(t, dir, "in.jsonl", chatLine("a"), chatLine("b"), chatLine("c"))
	output := filepath.Join(dir, "out.jsonl")
	r := c.run(context.Background(), "batch", input, "-o", output, "--concurrency", "1", "--json")
	var summary batchSummaryJSON
	if err := json.Unmarshal([]byte(r.stdout), &summary); err != nil || r.code != exitFailed {
		t.Fatalf("run with a refused request = %+v (%v), want exit status 1 and the summary as JSON", r, err)
	}
	if summary.Total != 3 || summary.Succeeded != 2 || summary.Failed != 1 || summary.Sent != 3 || summary.Output != output {
		t.Errorf("summary %+v, want 3 requests, 2 succeeded, 1 failed", summary)
	}
	var doc any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if key, ok := notSnakeCase(doc); ok {
		t.Errorf("batch --json has the key %q, want snake_case:\n%s", key, r.stdout)
	}
	if !strings.Contains(r.stderr, "--retry-failed") {
		t.Errorf("stderr %q, want the way to send the failed one again", r.stderr)
	}
	var failed string
	for id, res := range readResults(t, output) {
		if !succeeded(res) {
			failed = id
			if res.Response == nil || res.Response.StatusCode != http.StatusBadRequest {
				t.Errorf("failed result %+v, want the gateway's 400", res)
			}
		}
	}
	if failed == "" {
		t.Fatal("no failed result in the output")
	}
	r = c.run(context.Background(), "batch", input, "-o", output)
	if r.code != exitFailed {
		t.Errorf("run again without --retry-failed = %+v, want exit status 1: the failure is kept", r)
	}
	r = c.run(context.Background(), "batch", input, "-o", output, "--retry-failed")
	if r.code != exitOK {
		t.Fatalf("--retry-failed = %+v, want exit status 0", r)
	}
	results := readResults(t, output)
	if len(results) != 3 || !succeeded(results[failed]) {
		t.Errorf("results after --retry-failed: %+v, want three successes", results)
	}
	if sent := sentByID(c.srv); sent[failed] != 2 || len(sent) != 3 {
		t.Errorf("requests by custom_id %v, want %s sent twice and the others once", sent, failed)
	}
}

// TestBatchBadInput: each kind of bad line is named with its number, with exit status 2 and
// nothing sent.
func TestBatchBadInput(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		lines []string
		want  []string // lines of stderr, from "in.jsonl:"
	}{
		"malformed JSON":      {[]string{chatLine("a"), `{"custom_id":"b",`}, []string{"in.jsonl:2: "}},
		"duplicate custom_id": {[]string{chatLine("a"), chatLine("b"), chatLine("a")}, []string{"in.jsonl:3: "}},
		"unknown url": {[]string{strings.Replace(chatLine("a"), "/v1/chat/completions", "/v1/completions", 1), chatLine("b")},
			[]string{"in.jsonl:1: "}},
		"body the SDK refuses": {[]string{chatLine("a"), `{"custom_id":"b","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}`},
			[]string{"in.jsonl:2: invalid Messages: "}},
		"several bad lines": {[]string{"not json", chatLine("a"), chatLine("a")}, []string{"in.jsonl:1: ", "in.jsonl:3: "}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			dir := t.TempDir()
			input := writeLines(t, dir, "in.jsonl", tt.lines...)
			r := c.run(context.Background(), "batch", input, "-o", filepath.Join(dir, "out.jsonl"))
			if r.code != exitUsage || r.stdout != "" || !strings.HasSuffix(r.stderr, "nothing was sent: correct "+input+" first\n") {
				t.Errorf("run = %+v, want exit status 2 and the bad lines", r)
			}
			for _, want := range tt.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q does not say %q", r.stderr, want)
				}
			}
			if n := len(c.srv.Requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// TestBatchInterrupted: Ctrl-C stops the sending, lets the requests in flight finish, and exits
// with status 130; the same command then sends the rest, each request once.
func TestBatchInterrupted(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	answered := 0
	c := newCLI(t, gatewaytest.WithResponder(func(req gatewaytest.Request) gatewaytest.Reply {
		mu.Lock()
		answered++
		n := answered
		mu.Unlock()
		if n == 3 { // the third request is in flight at the Ctrl-C, and finishes after it
			once.Do(func() { close(arrived) })
			<-release
		}
		return gatewaytest.Reply{Content: "answer"}
	}))
	dir := t.TempDir()
	var lines []string
	for i := range 10 {
		lines = append(lines, chatLine(fmt.Sprint("r", i)))
	}
	input := writeLines(t, dir, "in.jsonl", lines...)
	output := filepath.Join(dir, "out.jsonl")
	ctx, interrupt := context.WithCancel(context.Background())
	go func() {
		<-arrived
		interrupt()
		close(release)
	}()
	r := c.run(ctx, "batch", input, "-o", output, "--concurrency", "1")
	if r.code != exitInterrupted || !strings.Contains(r.stderr, "batch: stopping") ||
		!strings.Contains(r.stderr, "run the same command again to resume") {
		t.Fatalf("interrupted run = %+v, want exit status 130 and how to resume", r)
	}
	if got := readResults(t, output); len(got) != 3 {
		t.Errorf("%d results after the interrupt, want the 3 sent, the one in flight included", len(got))
	}
	r = c.run(context.Background(), "batch", input, "-o", output, "--concurrency", "1")
	if r.code != exitOK {
		t.Fatalf("resumed run = %+v, want exit status 0", r)
	}
	if got := readResults(t, output); len(got) != 10 {
		t.Errorf("%d results after resuming, want 10", len(got))
	}
	for id, n := range sentByID(c.srv) {
		if n != 1 {
			t.Errorf("%s sent %d times, want once", id, n)
		}
	}
}

// TestBatchStatusLines: off a terminal, a line of progress every statusEvery on stderr, and the
// summary at the end. The app's clock moves a second each time it is read.
func TestBatchStatusLines(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var mu sync.Mutex
	clock := gatewaytest.FixedTime()
	c.clock = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	dir := t.TempDir()
	var lines []string
	for i := range 12 {
		lines = append(lines, chatLine(fmt.Sprint("r", i)))
	}
	input := writeLines(t, dir, "in.jsonl", lines...)
	r := c.run(context.Background(), "batch", input, "-o", filepath.Join(dir, "out.jsonl"), "--concurrency", "1")
	if r.code != exitOK {
		t.Fatalf("run = %+v", r)
	}
	status := regexp.MustCompile(`^batch: \d+/12 \d+%(  \d+ in flight)?  [\d.]+/s(  ETA \d+[a-z0-9.]*)?  \d+ tokens(  [\d.]+ USD)?$`)
	var progress int
	for line := range strings.Lines(r.stderr) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.Contains(line, "\r") || strings.Contains(line, "\033"):
			t.Errorf("stderr line %q redraws, off a terminal", line)
		case strings.HasPrefix(line, "batch: 12 requests: "), strings.HasPrefix(line, "using the real gateway at "):
		case status.MatchString(line):
			progress++
		default:
			t.Errorf("unexpected stderr line %q", line)
		}
	}
	// Two lines for 12 results; Run's calls of Progress while a slow request is in flight read the
	// clock too, and may add one or two.
	if progress < 1 || progress > 4 {
		t.Errorf("%d progress lines over 12 results with the clock a second on each, want one every 5 s:\n%s", progress, r.stderr)
	}
}

// TestBatchShards: the shards of a file, each run into its own output, hold every request once.
func TestBatchShards(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	var lines []string
	for i := range 20 {
		lines = append(lines, chatLine(fmt.Sprint("r", i)))
	}
	input := writeLines(t, dir, "in.jsonl", lines...)
	all := map[string]bool{}
	for i := range 3 {
		output := filepath.Join(dir, fmt.Sprintf("out-%d.jsonl", i))
		r := c.run(context.Background(), "batch", input, "-o", output, "--shard", fmt.Sprintf("%d/3", i), "--json")
		var summary batchSummaryJSON
		if err := json.Unmarshal([]byte(r.stdout), &summary); err != nil || r.code != exitOK ||
			summary.Shard != fmt.Sprintf("%d/3", i) || !strings.Contains(r.stderr, fmt.Sprintf(" of shard %d/3: ", i)) {
			t.Fatalf("shard %d/3 = %+v (%v), want exit status 0 and the shard named", i, r, err)
		}
		results := readResults(t, output)
		if summary.Total != len(results) || summary.Total == 20 {
			t.Errorf("shard %d/3 covers %d requests and wrote %d results, want a part of the 20", i, summary.Total, len(results))
		}
		for id := range results {
			if all[id] {
				t.Errorf("%s is in two shards", id)
			}
			all[id] = true
		}
	}
	if len(all) != 20 {
		t.Errorf("the shards hold %d requests, want 20", len(all))
	}
	for id, n := range sentByID(c.srv) {
		if n != 1 {
			t.Errorf("%s sent %d times, want once", id, n)
		}
	}
}

// TestBatchFallback: with --fallback, a chat request whose model is down is answered by the next
// model; with --cooldown, the requests that follow skip the model that failed.
func TestBatchFallback(t *testing.T) {
	t.Parallel()
	c := newCLI(t, gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageProviderError))
	c.clientOpts = []infergate.Option{infergate.WithMaxRetries(0)} // the outage at once, without backoff
	dir := t.TempDir()
	input := writeLines(t, dir, "in.jsonl", chatLine("a"), chatLine("b"), chatLine("c"))
	output := filepath.Join(dir, "out.jsonl")
	r := c.run(context.Background(), "batch", input, "-o", output, "--concurrency", "1",
		"--fallback", "qwen2.5-vl-72b, llama-3.3-70b:web", "--cooldown", "1m")
	if r.code != exitOK {
		out, _ := os.ReadFile(output)
		t.Fatalf("run = %+v, want exit status 0\n%s", r, out)
	}
	for id, res := range readResults(t, output) {
		var completion struct{ Model string }
		if !succeeded(res) || json.Unmarshal(res.Response.Body, &completion) != nil || completion.Model != "qwen2.5-vl-72b" {
			t.Errorf("result of %s = %+v, want qwen2.5-vl-72b's answer", id, res)
		}
	}
	down := 0
	for _, req := range c.srv.Requests() {
		if req.JSON["model"] == "llama-3.3-70b" {
			down++
		}
	}
	if down != 1 {
		t.Errorf("the model that is down was sent %d requests, want 1: the others skip it while it cools", down)
	}
}

// TestBatchQuotasFile: --quotas reads the key's quotas; a file that cannot be read, or holds what
// the SDK refuses, is a wrong command line.
func TestBatchQuotasFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeLines(t, dir, "good.json", `{"groups": [{"name": "L", "models": ["glm-5.1", "kimi*"], "requests": 20, "tokens": 500000, "window": "1m"}],
		"default": {"requests": 60, "concurrent": 4, "window": "10s"}}`)
	q, err := readQuotas(good)
	want := infergate.Quotas{
		Groups: []infergate.QuotaGroup{{Name: "L", Models: []string{"glm-5.1", "kimi*"},
			Quota: infergate.Quota{Requests: 20, Tokens: 500000, Window: time.Minute}}},
		Default: infergate.Quota{Requests: 60, Concurrent: 4, Window: 10 * time.Second},
	}
	if err != nil || !reflect.DeepEqual(q, want) {
		t.Errorf("readQuotas = %+v, %v; want %+v", q, err, want)
	}
	c := newCLI(t)
	input := writeLines(t, dir, "in.jsonl", chatLine("a"))
	for name, tt := range map[string]struct{ file, says string }{
		"negative count": {`{"default": {"requests": -1}}`, "must not be negative"},
		"unknown field":  {`{"default": {"rpm": 5}}`, "rpm"},
		"bad window":     {`{"groups": [{"name": "L", "window": "soon"}]}`, `group "L"`},
		"not JSON":       {`requests: 5`, "invalid character"},
	} {
		path := writeLines(t, dir, strings.ReplaceAll(name, " ", "-")+".json", tt.file)
		r := c.run(context.Background(), "batch", input, "-o", filepath.Join(dir, "out.jsonl"), "--quotas", path)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--quotas") || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("%s: run = %+v, want exit status 2 and %q", name, r, tt.says)
		}
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// TestBatchOutputIsTheInput: writing the results over the input is refused before anything is
// sent.
func TestBatchOutputIsTheInput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	input := writeLines(t, dir, "in.jsonl", chatLine("a"))
	r := c.run(context.Background(), "batch", input, "-o", filepath.Join(dir, ".", "in.jsonl"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "is the input") {
		t.Errorf("run = %+v, want exit status 2", r)
	}
	if data, err := os.ReadFile(input); err != nil || string(data) != chatLine("a")+"\n" {
		t.Errorf("the input holds %q (%v), want it untouched", data, err)
	}
}

// TestBatchRedisUnreachable: a Redis that does not answer fails the run before anything is sent,
// naming its address and never the URL's password.
func TestBatchRedisUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c := newCLI(t)
	dir := t.TempDir()
	input := writeLines(t, dir, "in.jsonl", chatLine("a"))
	r := c.run(context.Background(), "batch", input, "-o", filepath.Join(dir, "out.jsonl"), "--redis", "redis://:secret@"+addr)
	if r.code != exitFailed || !strings.Contains(r.stderr, "--redis: Redis at "+addr) || strings.Contains(r.stderr, "secret") {
		t.Errorf("run = %+v, want exit status 1 and the address, without the password", r)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
