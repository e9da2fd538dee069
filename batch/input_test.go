package batch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestBadInputIsRefusedBeforeSending gives one bad line of each kind among good ones and finds each
// named by its line number, nothing sent and no output made.
func TestBadInputIsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	lines := []string{
		chatLine("ok-1", "hi"),
		`{"custom_id":"broken","method":"POST"`, // 2: not JSON
		`{"method":"POST","url":"/v1/chat/completions","body":{"messages":[{"role":"user","content":"hi"}]}}`, // 3: no custom_id
		`{"custom_id":"get","method":"GET","url":"/v1/chat/completions","body":{}}`,                           // 4
		`{"custom_id":"url","method":"POST","url":"/v1/completions","body":{"prompt":"hi"}}`,                  // 5
		`{"custom_id":"nobody","method":"POST","url":"/v1/chat/completions"}`,                                 // 6
		`{"custom_id":"invalid","method":"POST","url":"/v1/chat/completions","body":{"messages":[]}}`,         // 7
		chatLine("ok-1", "again"), // 8: duplicate of line 1
		`{"custom_id":"stream","method":"POST","url":"/v1/chat/completions","body":{"stream":true,"messages":[{"role":"user","content":"hi"}]}}`, // 9
		`{"custom_id":"tokens","method":"POST","url":"/v1/embeddings","body":{"input":[[1,2,3]]}}`,                                               // 10
		`{"custom_id":"case","method":"POST","url":"/v1/chat/completions","body":{"Messages":[{"role":"user","content":"hi"}]}}`,                 // 11
		embedLine("empty-text", " "), // 12
		"",                           // 13: a blank line is allowed
		embedLine("ok-2", "text"),
		`[1,2]`, // 15
	}
	want := map[int]string{
		2: "not a JSON request object", 3: "custom_id is missing", 4: `method "GET"`, 5: `url "/v1/completions"`,
		6: "body is missing", 7: "Messages", 8: "line 1's already", 9: "stream", 10: "token ids",
		11: `write it "messages"`, 12: "Input[0]", 15: "not a JSON request object",
	}
	s := gatewaytest.New(t)
	in, out := files(t, lines...)
	_, err := batch.Run(context.Background(), s.Client(), batch.Job{Input: in, Output: out})
	var inputErr *batch.InputError
	if !errors.As(err, &inputErr) {
		t.Fatalf("err = %v, want an *InputError", err)
	}
	got := map[int]string{}
	for _, l := range inputErr.Lines {
		got[l.Line] = l.Err.Error()
		if w, ok := want[l.Line]; !ok || !strings.Contains(l.Err.Error(), w) {
			t.Errorf("line %d: %v, want %q", l.Line, l.Err, w)
		}
	}
	for line := range want {
		if _, ok := got[line]; !ok {
			t.Errorf("line %d not reported", line)
		}
	}
	var validation *infergate.ValidationError
	if !errors.As(err, &validation) {
		t.Errorf("no *infergate.ValidationError in %v", err)
	}
	var dup *batch.DuplicateError
	if !errors.As(err, &dup) || dup.FirstLine != 1 {
		t.Errorf("duplicate: %+v", dup)
	}
	if !strings.Contains(err.Error(), `line 8 (custom_id "ok-1")`) {
		t.Errorf("the message does not name line 8 and its id:\n%v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output made: %v", err)
	}
}

// TestInputErrorsAreBounded gives a file of bad lines and gets MaxLineErrors of them, the first.
func TestInputErrorsAreBounded(t *testing.T) {
	t.Parallel()
	lines := make([]string, 100)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"custom_id":"%d"}`, i)
	}
	in, out := files(t, lines...)
	_, err := batch.Run(context.Background(), gatewaytest.New(t).Client(), batch.Job{Input: in, Output: out})
	var inputErr *batch.InputError
	if !errors.As(err, &inputErr) || len(inputErr.Lines) != batch.MaxLineErrors || inputErr.Lines[0].Line != 1 {
		t.Fatalf("err = %v", err)
	}
}

// TestDuplicatesAmongManyIDs finds the one duplicate among many ids, with both its lines.
func TestDuplicatesAmongManyIDs(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 5000 {
		lines = append(lines, embedLine(fmt.Sprint("id-", i), "x"))
	}
	lines = append(lines, embedLine("id-1234", "y"))
	in, out := files(t, lines...)
	_, err := batch.Run(context.Background(), gatewaytest.New(t).Client(), batch.Job{Input: in, Output: out})
	var inputErr *batch.InputError
	if !errors.As(err, &inputErr) || len(inputErr.Lines) != 1 {
		t.Fatalf("err = %v", err)
	}
	if l := inputErr.Lines[0]; l.Line != 5001 || l.CustomID != "id-1234" || l.Err.(*batch.DuplicateError).FirstLine != 1235 {
		t.Errorf("%+v", l)
	}
}

// TestBadJobIsRefused gives jobs Run cannot run.
func TestBadJobIsRefused(t *testing.T) {
	t.Parallel()
	in, out := files(t, chatLine("a", "hi"))
	for _, job := range []batch.Job{
		{Input: in},
		{Output: out},
		{Input: in, Output: in},
		{Input: in, Output: out, Concurrency: -1},
		{Input: in, Output: out, Shard: batch.Shard{Index: 2, Count: 2}},
		{Input: in + ".missing", Output: out},
	} {
		if _, err := batch.Run(context.Background(), gatewaytest.New(t).Client(), job); err == nil {
			t.Errorf("%+v: no error", job)
		}
	}
	if _, err := batch.Run(context.Background(), nil, batch.Job{Input: in, Output: out}); err == nil {
		t.Error("no client: no error")
	}
}
