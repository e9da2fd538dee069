package lcinfergate

import (
	"fmt"
	"testing"

	infergate "github.com/infergate/infergate-go"
)

// TestReasoningMemoIsBounded: a long-running program's LLM keeps the reasoning of its recent tool
// turns only, the oldest going first, and tells turns apart by their conversation and every
// call's id, name and arguments.
func TestReasoningMemoIsBounded(t *testing.T) {
	t.Parallel()
	m := newReasoningMemo(3, 1<<20)
	var conv conversation
	turn := func(i int) []infergate.ToolCall {
		return []infergate.ToolCall{{ID: fmt.Sprint("call_", i), Function: infergate.FunctionCall{Name: "f", Arguments: "{}"}}}
	}
	for i := range 5 {
		m.put(conv, turn(i), fmt.Sprint("thought ", i))
	}
	m.put(conv, turn(4), "thought 4") // again: still one entry
	for i := range 5 {
		want := ""
		if i >= 2 {
			want = fmt.Sprint("thought ", i)
		}
		if got := m.get(conv, turn(i)); got != want {
			t.Errorf("turn %d: %q, want %q", i, got, want)
		}
	}
	other := turn(4)
	other[0].Function.Arguments = `{"x":1}`
	if got := m.get(conv, other); got != "" {
		t.Errorf("a turn with other arguments found %q", got)
	}
	h := newConversationHash()
	h.add(infergate.UserMessage("another conversation"))
	if got := m.get(h.sum(), turn(4)); got != "" {
		t.Errorf("the same calls in another conversation found %q", got)
	}
	m.put(conv, turn(9), "")
	if len(m.order) != 3 || m.get(conv, nil) != "" {
		t.Errorf("an empty reasoning was kept, or calls-less turns found one: %d entries", len(m.order))
	}
}

// TestReasoningMemoIsBoundedInBytes: the oldest entries go once the reasoning kept passes the
// bound, and a reasoning larger than the bound is not kept at all.
func TestReasoningMemoIsBoundedInBytes(t *testing.T) {
	t.Parallel()
	m := newReasoningMemo(100, 10)
	var conv conversation
	turn := func(i int) []infergate.ToolCall {
		return []infergate.ToolCall{{ID: fmt.Sprint("call_", i), Function: infergate.FunctionCall{Name: "f", Arguments: "{}"}}}
	}
	m.put(conv, turn(0), "aaaa")
	m.put(conv, turn(1), "bbbb")
	m.put(conv, turn(2), "cccc") // 12 bytes: the oldest goes
	m.put(conv, turn(1), "bb")   // replaced: 6 bytes
	m.put(conv, turn(3), "dddddddddddd")
	got := []string{m.get(conv, turn(0)), m.get(conv, turn(1)), m.get(conv, turn(2)), m.get(conv, turn(3))}
	if want := []string{"", "bb", "cccc", ""}; fmt.Sprint(got) != fmt.Sprint(want) || m.held != 6 {
		t.Errorf("kept %q holding %d bytes, want %q holding 6", got, m.held, want)
	}
}
