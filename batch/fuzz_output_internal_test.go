package batch

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOutput resumes arbitrary bytes as an output of an input of the requests "a", "b" and "c",
// as Run does, with and without RetryFailed: reading it never panics, and an output it accepts
// is left holding whole lines only, which read again as the same results (the failed ones gone
// when RetryFailed wrote it anew), with nothing torn or unfinished.
func FuzzOutput(f *testing.F) {
	ok := `{"id":"batch_req_1","custom_id":"a","response":{"status_code":200,"request_id":"r","body":{}},"error":null}`
	failed := `{"id":"batch_req_2","custom_id":"b","response":{"status_code":500,"request_id":"r","body":{}},"error":null}`
	noAnswer := `{"id":"batch_req_3","custom_id":"c","response":null,"error":{"code":"transport_error","message":"x"}}`
	for _, seed := range []string{
		"", "\n", ok + "\n", ok, ok + "\n" + failed + "\n" + noAnswer + "\n", ok + "\n" + failed[:40],
		failed + "\n" + ok + "\n  \n" + noAnswer, ok + "\n{\n" + failed + "\n", "\n\n" + failed,
		`{"custom_id":"ghost","response":{"status_code":500}}` + "\n" + failed + "\n" + `{"custom_id":"b","response":{"status_code":201}}`,
		"{}\n", "null", "  " + ok + "  ", ok + "\n" + ok + "\n",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	h := newHasher()
	f.Fuzz(func(t *testing.T, data []byte, retry bool) {
		ids := func() *idSet {
			set, _ := newIDSet([]idKey{h.key("a"), h.key("b"), h.key("c")})
			return &set
		}
		path := filepath.Join(t.TempDir(), "out.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		set := ids()
		out, err := readOutput(path, h, set, Shard{})
		if err != nil {
			if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
				t.Fatalf("a refused output was changed: %q to %q", data, after)
			}
			return
		}
		dropped := retry && out.failed > 0
		if dropped {
			var lock *os.File
			if lock, err = dropFailed(path, h, set, Shard{}); err == nil {
				lock.Close()
			}
		} else {
			err = repair(path, out)
		}
		if err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) > 0 && after[len(after)-1] != '\n' {
			t.Fatalf("%q was left as %q, without a newline at the end", data, after)
		}
		again, err := readOutput(path, h, ids(), Shard{})
		if err != nil {
			t.Fatalf("%q was left as %q: %v", data, after, err)
		}
		want := out
		if dropped {
			want.failed = 0
		}
		if again.torn || again.unfinished || again.succeeded != want.succeeded || again.failed != want.failed {
			t.Fatalf("%q was left as %q, read again as %+v; want %+v", data, after, again, want)
		}
	})
}
