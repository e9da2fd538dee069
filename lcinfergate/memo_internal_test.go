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
	put := func(calls []infergate.ToolCall, reasoning string) {
		m.put(conv, infergate.Message{Role: infergate.RoleAssistant, ToolCalls: calls, Reasoning: reasoning})
	}
	get := func(conv conversation, calls []infergate.ToolCall) string {
		msg := infergate.Message{Role: infergate.RoleAssistant, ToolCalls: calls}
		m.get(conv, &msg)
		return msg.Reasoning
	}
	for i := range 5 {
		put(turn(i), fmt.Sprint("thought ", i))
	}
	put(turn(4), "thought 4") // again: still one entry
	for i := range 5 {
		want := ""
		if i >= 2 {
			want = fmt.Sprint("thought ", i)
		}
		if got := get(conv, turn(i)); got != want {
			t.Errorf("turn %d: %q, want %q", i, got, want)
		}
	}
	other := turn(4)
	other[0].Function.Arguments = `{"x":1}`
	if got := get(conv, other); got != "" {
		t.Errorf("a turn with other arguments found %q", got)
	}
	h := newConversationHash()
	h.add(infergate.UserMessage("another conversation"))
	if got := get(h.sum(), turn(4)); got != "" {
		t.Errorf("the same calls in another conversation found %q", got)
	}
	put(turn(9), "")
	m.put(conv, infergate.Message{Role: infergate.RoleAssistant, Content: "text", Reasoning: "thought"})
	if len(m.order) != 3 || get(conv, nil) != "" {
		t.Errorf("an empty reasoning was kept, or the reasoning of a turn without calls: %d entries", len(m.order))
	}
}

// TestMemoKeepsFields: the memo keeps the fields of an answer's message and calls, for a turn
// with calls by its calls, for one without by its text, and hands each message its own copy.
func TestMemoKeepsFields(t *testing.T) {
	t.Parallel()
	m := newReasoningMemo(8, 1<<20)
	var conv conversation
	sig := infergate.RawFields{"extra_content": []byte(`{"google":{"thought_signature":"c2ln"}}`)}
	details := infergate.RawFields{"reasoning_details": []byte(`[{"text":"a"}]`)}
	calls := []infergate.ToolCall{{ID: "c1", Function: infergate.FunctionCall{Name: "f", Arguments: "{}"}, Extra: sig}, {ID: "c2"}}
	m.put(conv, infergate.Message{Role: infergate.RoleAssistant, ToolCalls: calls, Extra: details})
	m.put(conv, infergate.Message{Role: infergate.RoleAssistant, Content: "Sunny.", Extra: details})
	back := infergate.Message{Role: infergate.RoleAssistant, ToolCalls: []infergate.ToolCall{calls[0], calls[1]}}
	back.ToolCalls[0].Extra = nil
	m.get(conv, &back)
	if string(back.Extra["reasoning_details"]) != `[{"text":"a"}]` || string(back.ToolCalls[0].Extra["extra_content"]) != string(sig["extra_content"]) ||
		back.ToolCalls[1].Extra != nil {
		t.Errorf("the calls' turn came back as %+v", back)
	}
	back.Extra["x"] = []byte("1")
	text := infergate.Message{Role: infergate.RoleAssistant, Content: "Sunny."}
	m.get(conv, &text)
	if len(text.Extra) != 1 || string(text.Extra["reasoning_details"]) != `[{"text":"a"}]` {
		t.Errorf("the text turn came back as %+v", text)
	}
	other := infergate.Message{Role: infergate.RoleAssistant, Content: "Rainy."}
	if m.get(conv, &other); other.Extra != nil {
		t.Errorf("another text found %+v", other.Extra)
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
	put := func(i int, reasoning string) {
		m.put(conv, infergate.Message{Role: infergate.RoleAssistant, ToolCalls: turn(i), Reasoning: reasoning})
	}
	get := func(i int) string {
		msg := infergate.Message{Role: infergate.RoleAssistant, ToolCalls: turn(i)}
		m.get(conv, &msg)
		return msg.Reasoning
	}
	put(0, "aaaa")
	put(1, "bbbb")
	put(2, "cccc") // 12 bytes: the oldest goes
	put(1, "bb")   // replaced: 6 bytes
	put(3, "dddddddddddd")
	got := []string{get(0), get(1), get(2), get(3)}
	if want := []string{"", "bb", "cccc", ""}; fmt.Sprint(got) != fmt.Sprint(want) || m.held != 6 {
		t.Errorf("kept %q holding %d bytes, want %q holding 6", got, m.held, want)
	}
}
