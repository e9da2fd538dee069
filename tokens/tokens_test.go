package tokens_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/tokens"
)

// cl100k holds counts of cl100k_base found outside this package. "cookbook": OpenAI's cookbook,
// "How to count tokens with tiktoken" (the ids listed there); "tiktoken": tiktoken's own test of
// special-token text encoded as ordinary text, [27 91 8862 728 428 91 29]; "run": printed by
// github.com/tiktoken-go/tokenizer v0.7.0's Encode in a program of its own, with the ids shown.
var cl100k = []struct {
	text   string
	tokens int
	source string
}{
	{"", 0, "run: []"},
	{"hello world", 2, "cookbook, run: [15339 1917]"},
	{"tiktoken is great!", 6, "cookbook, run: [83 1609 5963 374 2294 0]"},
	{"antidisestablishmentarianism", 6, "cookbook, run: [519 85342 34500 479 8997 2191]"},
	{"2 + 2 = 4", 7, "cookbook, run: [17 489 220 17 284 220 19]"},
	{"お誕生日おめでとう", 9, "cookbook, run: [33334 45918 243 21990 9080 33334 62004 16556 78699]"},
	{"<|endoftext|>", 7, "tiktoken, run: [27 91 8862 728 428 91 29]"},
	{"<|fim_prefix|>", 7, "run: [27 91 69 318 14301 91 29]"},
	{"<|endofprompt|>", 7, "run: [27 91 408 1073 41681 91 29]"},
	{"Hello, 世界! 👋", 9, "run: [9906 11 220 3574 244 98220 0 62904 233]"},
	{"   \n\n  indented", 4, "run: [35033 220 1280 16243]"},
	{"\xff\xfe", 1, "run: [10178], U+FFFD U+FFFD"},
	{"\ufffd\ufffd", 1, "run: [10178]"},
	{"1234567890", 4, "run: [4513 10961 16474 15]"},
	{"I'm here, you're there.", 8, "run: [40 2846 1618 11 499 2351 1070 13]"},
	{strings.Repeat("a", 1000), 125, "run"},
	{strings.Repeat(" ", 100), 2, "run: [5351 10812]"},
	{"get_weather", 2, "run: [456 70464]"},
	{"bob", 1, "run: [48186]"},
	{"Привет, мир", 6, "run: [54745 28089 8341 11 11562 78746]"},
	{"e\u0301", 2, "run: [68 54939]"},
	{`{"city":"Paris"}`, 5, "run: [5018 9103 3332 60704 9388]"},
}

func TestCountTextMatchesKnownCounts(t *testing.T) {
	t.Parallel()
	for _, c := range cl100k {
		if got := tokens.CountText(c.text); got != c.tokens {
			t.Errorf("CountText(%.40q) = %d, want %d (%s)", c.text, got, c.tokens, c.source)
		}
	}
}

// tokensOf returns the count the table above gives text.
func tokensOf(t *testing.T, text string) int {
	t.Helper()
	for _, c := range cl100k {
		if c.text == text {
			return c.tokens
		}
	}
	t.Fatalf("%q is not in the table", text)
	return 0
}

func TestCountPromptAddsPerMessageAndName(t *testing.T) {
	t.Parallel()
	png, err := infergate.ImageBytesPart([]byte("\x89PNG\r\n\x1a\n0000"))
	if err != nil {
		t.Fatal(err)
	}
	tool := infergate.ToolResultMessage("call_1", `{"city":"Paris"}`)
	tool.Name = "get_weather"
	tests := []struct {
		name string
		msgs []infergate.Message
		want int
	}{
		{"none", nil, 0},
		{"one", []infergate.Message{infergate.UserMessage("hello world")}, 4 + tokensOf(t, "hello world")},
		{"empty content", []infergate.Message{infergate.AssistantMessage("")}, 4},
		{"empty parts", []infergate.Message{{Role: infergate.RoleUser, Parts: []infergate.ContentPart{}}}, 4},
		{"empty parts are sent instead of content", []infergate.Message{{Role: infergate.RoleUser, Content: "hello world",
			Parts: []infergate.ContentPart{}}}, 4},
		{"named", []infergate.Message{{Role: infergate.RoleUser, Content: "hello world", Name: "bob"}},
			4 + tokensOf(t, "hello world") + tokensOf(t, "bob")},
		{"text parts, images count nothing", []infergate.Message{infergate.UserMessageParts(
			infergate.TextPart("hello world"), infergate.ImageURLPart("https://example.com/cat.png"), png,
			infergate.TextPart("2 + 2 = 4"))},
			4 + tokensOf(t, "hello world") + tokensOf(t, "2 + 2 = 4")},
		{"parts replace content", []infergate.Message{{Role: infergate.RoleUser, Content: "hello world2 + 2 = 4",
			Parts: []infergate.ContentPart{infergate.TextPart("hello world"), infergate.TextPart("2 + 2 = 4")}}},
			4 + tokensOf(t, "hello world") + tokensOf(t, "2 + 2 = 4")},
		{"raw parts by their own type", []infergate.Message{infergate.UserMessageParts(
			infergate.ContentPart{Raw: json.RawMessage(`{"type":"text","text":"bob"}`)},
			infergate.ContentPart{Raw: json.RawMessage(`{"type":"thinking","thinking":"hello world"}`)},
			infergate.ContentPart{Raw: json.RawMessage(`{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}`)})},
			4 + tokensOf(t, "bob")},
		{"tool calls, ids and reasoning count nothing", []infergate.Message{
			{Role: infergate.RoleAssistant, Reasoning: "hello world", ToolCalls: []infergate.ToolCall{
				{ID: "call_1", Type: "function", Function: infergate.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
			tool},
			4 + 4 + tokensOf(t, `{"city":"Paris"}`) + tokensOf(t, "get_weather")},
		{"special-token text", []infergate.Message{infergate.SystemMessage("<|endoftext|>")}, 4 + tokensOf(t, "<|endoftext|>")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tokens.CountPrompt(tc.msgs); got != tc.want {
				t.Fatalf("CountPrompt = %d, want %d", got, tc.want)
			}
		})
	}
}

// The codec is shared; counts running at once must neither race nor disagree.
func TestCountTextConcurrently(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, c := range cl100k {
				if got := tokens.CountText(c.text); got != c.tokens {
					t.Errorf("CountText(%.40q) = %d, want %d", c.text, got, c.tokens)
				}
			}
		})
	}
	wg.Wait()
}
