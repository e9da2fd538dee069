package tokens_test

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/tokens"
)

var (
	conversations = flag.Int("conversations", 1200, "random conversations TestCountPromptEqualsNodeOnRandomConversations compares")
	seed          = flag.Uint64("seed", 45, "seed of the random conversations")
)

// pieces are what random texts are made of: words, numbers, whitespace, code, text in other
// scripts, special-token text, control characters and bytes that are not UTF-8.
var pieces = []string{
	"hello", " world", " the", "Token", " counting", "don't", " I'll", " WE'RE", "1234567", "3.14159", "42",
	" ", "  ", "\n", "\n\n", "\t", "\r\n", "   \n  ", "\u00a0", "\u2028",
	"!!", "...", `{"a":1}`, "<b>", "```go\nfunc main() {}\n```", `"quoted"`, `back\slash`, "a_b-c",
	"こんにちは世界", "Привет", "😀", "👍🏽", "e\u0301", "naïve café", "مرحبا", "한국어", "🇫🇷", "\u200d",
	"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>", "<|im_start|>",
	"\xff", "\xc3", "a\x80b", "\xed\xa0\x80", "\x00", "\x1b[0m", "\x7f",
}

// randomText joins up to a dozen pieces and random code points; now and then a long run.
func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(13) {
		switch r.IntN(8) {
		case 0:
			b.WriteRune(rune(r.IntN(0x3000)))
		case 1:
			b.WriteRune(rune(0x1F300 + r.IntN(0x300)))
		default:
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
	}
	if r.IntN(40) == 0 {
		b.WriteString(strings.Repeat(pieces[r.IntN(len(pieces))], 50+r.IntN(200)))
	}
	return b.String()
}

func randomPart(r *rand.Rand) infergate.ContentPart {
	switch r.IntN(7) {
	case 0:
		return infergate.ImageURLPart("https://example.com/" + strings.Repeat("x", r.IntN(20)) + ".png")
	case 1:
		p, err := infergate.ImageBytesPart([]byte("\x89PNG\r\n\x1a\n" + randomText(r)))
		if err != nil {
			panic(err)
		}
		return p
	case 2:
		raw, _ := json.Marshal(map[string]any{"type": "text", "text": randomText(r)})
		return infergate.ContentPart{Raw: raw}
	case 3:
		raw, _ := json.Marshal(map[string]any{"type": "input_audio", "input_audio": map[string]string{"data": "AAAA", "format": "wav"}})
		return infergate.ContentPart{Raw: raw}
	default:
		return infergate.TextPart(randomText(r))
	}
}

func randomMessage(r *rand.Rand) infergate.Message {
	roles := []infergate.Role{infergate.RoleSystem, infergate.RoleUser, infergate.RoleAssistant, infergate.RoleTool, "developer"}
	m := infergate.Message{Role: roles[r.IntN(len(roles))]}
	switch r.IntN(6) {
	case 0: // empty
	case 1:
		m.Parts = make([]infergate.ContentPart, r.IntN(5))
		for i := range m.Parts {
			m.Parts[i] = randomPart(r)
		}
		if r.IntN(3) == 0 {
			m.Content = m.Text() // an answer's message sent back holds both
		}
	default:
		m.Content = randomText(r)
	}
	if r.IntN(4) == 0 {
		m.Name = randomText(r)
	}
	if m.Role == infergate.RoleTool {
		m.ToolCallID = "call_" + randomText(r)
	}
	if m.Role == infergate.RoleAssistant && r.IntN(2) == 0 {
		for i := range r.IntN(3) + 1 {
			args, _ := json.Marshal(map[string]string{"q": randomText(r)})
			m.ToolCalls = append(m.ToolCalls, infergate.ToolCall{ID: "call_" + string(rune('a'+i)), Type: "function",
				Function: infergate.FunctionCall{Name: "get_weather", Arguments: string(args)}})
		}
		if r.IntN(2) == 0 {
			m.Reasoning = randomText(r)
		}
	}
	if r.IntN(10) == 0 {
		m.Extra = infergate.RawFields{"cache_control": json.RawMessage(`{"type":"ephemeral"}`)}
	}
	return m
}

func randomConversation(r *rand.Rand) []infergate.Message {
	msgs := make([]infergate.Message, 1+r.IntN(12))
	for i := range msgs {
		msgs[i] = randomMessage(r)
	}
	return msgs
}

func TestCountPromptEqualsNodeOnRandomConversations(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	r := rand.New(rand.NewPCG(*seed, 0))
	total, mismatches := 0, 0
	for i := range *conversations {
		msgs := randomConversation(r)
		body := w.send(t, msgs)
		got, want := tokens.CountPrompt(msgs), nodeCountBody(t, body)
		total += want
		if got != want {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("conversation %d: CountPrompt = %d, the node counts %d in\n%s", i, got, want, body)
			}
		}
	}
	t.Logf("%d random conversations (seed %d), %d prompt tokens in all, %d counted otherwise", *conversations, *seed, total, mismatches)
}
