package batch_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/batch"
)

// chatLine is an input line asking the chat route a question.
func chatLine(id, question string) string {
	return fmt.Sprintf(`{"custom_id":%q,"method":"POST","url":"/v1/chat/completions","body":{"model":"llama-3.3-70b","messages":[{"role":"user","content":%q}]}}`, id, question)
}

// embedLine is an input line asking for the vector of text.
func embedLine(id, text string) string {
	return fmt.Sprintf(`{"custom_id":%q,"method":"POST","url":"/v1/embeddings","body":{"input":%q}}`, id, text)
}

// files writes the input lines to a new directory and returns the paths of input and output.
func files(t *testing.T, lines ...string) (input, output string) {
	t.Helper()
	dir := t.TempDir()
	input, output = filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(input, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return input, output
}

// results reads an output file, failing the test on a line that is not a whole result.
func results(t *testing.T, path string) []batch.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []batch.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r batch.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("output line %d: %v: %s", len(out)+1, err, sc.Bytes())
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// byID indexes results by custom_id, failing the test on an id with two results.
func byID(t *testing.T, rs []batch.Result) map[string]batch.Result {
	t.Helper()
	m := make(map[string]batch.Result, len(rs))
	for _, r := range rs {
		if _, dup := m[r.CustomID]; dup {
			t.Fatalf("two results for %q", r.CustomID)
		}
		m[r.CustomID] = r
	}
	return m
}

func bytesReader(b []byte) *strings.Reader { return strings.NewReader(string(b)) }

func errorsAs[T any](err error, target *T) bool { return errors.As(err, target) }
