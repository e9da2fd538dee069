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

// FuzzUnquote checks the string decoder against encoding/json on every string encoding/json accepts.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u65e5\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", "\"\xed\xa0\x80\"", `"\u2028"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want string
		if json.Unmarshal([]byte(raw), &want) != nil || len(raw) == 0 || raw[0] != '"' {
			return
		}
		got, err := unquote([]byte(raw))
		if err != nil || got != want {
			t.Fatalf("unquote(%q) = %q, %v; encoding/json gives %q", raw, got, err, want)
		}
	})
}

// FuzzDecodeCatalog checks the catalogue's fast decoder against encoding/json: whatever it accepts,
// encoding/json decodes to the same models.
func FuzzDecodeCatalog(f *testing.F) {
	f.Add(`{"object":"list","data":[{"id":"m","blockchainID":"0xab","created":1731000000,"tags":["llm","fast"],"modelType":"LLM"}]}`)
	f.Add(`[{"id":"a"},{"id":"b","tags":[]}]`)
	f.Add(`{"data":[]}`)
	f.Add(`{"object":"list","data":[{"id":"é","owned_by":"x","created":0}]} `)
	f.Add(`{"data":[{"id":"a","tags":["x","y","y"]}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := decodeCatalog([]byte(raw))
		if !ok {
			return
		}
		want := listOf[Model]{field: "data"}
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", raw, err)
		}
		if len(got) != len(want.items) {
			t.Fatalf("%q: %d models, encoding/json %d", raw, len(got), len(want.items))
		}
		for i := range got {
			g, w := got[i], want.items[i]
			if g.Tags == nil && len(w.Tags) == 0 {
				g.Tags = w.Tags
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%q: model %d = %+v, encoding/json %+v", raw, i, g, w)
			}
		}
	})
}

// FuzzDecodeCompletion checks Create's fast decoder against encoding/json: whatever it accepts,
// encoding/json decodes to the same completion.
func FuzzDecodeCompletion(f *testing.F) {
	f.Add(`{"id":"c","object":"chat.completion","created":5,"model":"m","system_fingerprint":null,"choices":[{"index":0,"message":{"role":"assistant","content":"Hi \"there\"\n\u00e9","refusal":null,"reasoning_content":"r"},"logprobs":null,"finish_reason":"stop","content_filter_results":{"hate":{"filtered":false}}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"completion_tokens_details":{"reasoning_tokens":1}},"usage_from_provider":null}`)
	f.Add(`{"choices":[{"message":{"content":null,"reasoning":"x"},"logprobs":{"content":[{"token":"a","logprob":-1,"bytes":[97],"top_logprobs":[]}]}}],"prompt_filter_results":[1,{"a":null}]}`)
	f.Add(`{"choices":[]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var fast wireCompletion
		if !fast.decodeFast([]byte(raw)) {
			return
		}
		var slow wireCompletion
		if err := json.Unmarshal([]byte(raw), &slow); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", raw, err)
		}
		if got, want := fast.completion(), slow.completion(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nfast %+v\nslow %+v", raw, got, want)
		}
	})
}
