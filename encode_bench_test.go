package infergate

import (
	"strings"
	"testing"
)

// history20 is a 20-turn, ~50 KB conversation with a tool call and its result, as a chat that has
// run for a while sends on every turn.
func history20() ChatRequest {
	req := ChatRequest{Model: "llama-3.3-70b", Temperature: Ptr(0.2), MaxTokens: Ptr(512)}
	req.Messages = append(req.Messages, SystemMessage("You are a helpful assistant. Answer briefly."))
	para := strings.Repeat("The quick brown fox jumps over the lazy dog, \"quoted\" and <tagged>. ", 36)
	for i := range 19 {
		switch i % 3 {
		case 0:
			req.Messages = append(req.Messages, UserMessage(para))
		case 1:
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: para, Reasoning: "thinking about it",
				ToolCalls: []ToolCall{{ID: "call_1", Type: "function", Function: FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}}})
		default:
			req.Messages = append(req.Messages, ToolResultMessage("call_1", para))
		}
	}
	return req
}

func BenchmarkEncodeChat(b *testing.B) {
	c, err := NewClient(WithAPIKey("sk-bench"))
	if err != nil {
		b.Fatal(err)
	}
	req := history20()
	body, _ := c.encodeChat(&req, false)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.encodeChat(&req, false); err != nil {
			b.Fatal(err)
		}
	}
}
