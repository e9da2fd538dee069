package infergate

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzAppendString checks the hand-written string encoder against encoding/json: its output is
// valid JSON that decodes to what encoding/json's own encoding decodes to.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "\n\r\t\b\f\x00\x1f\x7f", "é日本🙂", "\u2028\u2029", "\xff\xfe invalid", "<b>&amp;</b>", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		var back, want string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendString(%q) = %s, not JSON: %v", s, got, err)
		}
		ref, _ := json.Marshal(s)
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if back != want {
			t.Fatalf("appendString(%q) decodes to %q, encoding/json's to %q", s, back, want)
		}
	})
}

// FuzzAppendMessage checks a whole message the same way, every field set from the fuzzer.
func FuzzAppendMessage(f *testing.F) {
	f.Add("user", "hi", "", "", "", "", "", false)
	f.Add("assistant", "x\"y", "bob", "call_1", "{\"a\":1}", "no", "thinking\n", true)
	f.Fuzz(func(t *testing.T, role, content, name, id, args, refusal, reasoning string, parts bool) {
		m := Message{Role: Role(role), Content: content, Name: name, Refusal: refusal, Reasoning: reasoning, ToolCallID: id}
		if id != "" {
			m.ToolCalls = []ToolCall{{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: args}}}
		}
		if parts {
			m.Parts = []ContentPart{TextPart(content), ImageURLPart("https://example.com/" + name)}
		}
		got, err := appendMessage(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s is not JSON: %v", got, err)
		}
		want := map[string]any{"role": role, "content": content}
		decode := func(v any) any { b, _ := json.Marshal(v); var out any; _ = json.Unmarshal(b, &out); return out }
		want["role"], want["content"] = decode(role), decode(content)
		if parts {
			want["content"] = decode(m.Parts)
		}
		for k, v := range map[string]string{"name": name, "tool_call_id": id, "refusal": refusal, "reasoning_content": reasoning} {
			if v != "" {
				want[k] = decode(v)
			}
		}
		if id != "" {
			want["tool_calls"] = decode(m.ToolCalls)
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("appendMessage = %s\nwant %v", got, want)
		}
	})
}
