package tokens_test

import (
	"encoding/json"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/tokens"
)

// FuzzCountPrompt counts any messages without panicking, never below the 4 every message adds,
// and, for messages the SDK can encode, as the node counts their wire form.
func FuzzCountPrompt(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"hello world","name":"bob"}]`), "<|endoftext|>")
	f.Add([]byte(`[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]`), "")
	f.Add([]byte(`[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"42"}]`), "\xff\xfe")
	f.Add([]byte(`[{"role":"user","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"お誕生日"}]}]`), "   \n\n  ")
	f.Add([]byte(`{"type":"text","text":"raw"}`), "Привет 😀")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		var msgs []infergate.Message
		_ = json.Unmarshal(data, &msgs)
		parts := []infergate.ContentPart{infergate.TextPart(text), infergate.ImageURLPart(text)}
		if json.Valid(data) {
			parts = append(parts, infergate.ContentPart{Raw: data})
		}
		msgs = append(msgs, infergate.Message{Role: infergate.RoleUser, Content: text, Name: text},
			infergate.Message{Role: infergate.RoleUser, Parts: parts})
		n := tokens.CountPrompt(msgs)
		if n < 4*len(msgs) {
			t.Fatalf("CountPrompt = %d for %d messages", n, len(msgs))
		}
		if c := tokens.CountText(text); c < 0 || c > len(text) {
			t.Fatalf("CountText = %d for %d bytes", c, len(text))
		}
		body, err := json.Marshal(msgs)
		if err != nil {
			return // the SDK refuses to send them
		}
		var node []nodeMessage
		if json.Unmarshal(body, &node) != nil {
			return // the node refuses them
		}
		if want := nodeCountPrompt(node); n != want {
			t.Fatalf("CountPrompt = %d, the node counts %d in %s", n, want, body)
		}
	})
}
