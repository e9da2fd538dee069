package infergate

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/internal/quota"
)

// randomText mixes what changes a repr(): quotes, backslashes, control and non-ASCII characters,
// unprintable ones and bytes that are not UTF-8.
func randomText(rng *rand.Rand) string {
	pieces := []string{"a", "hello ", "'", `"`, `\`, "\n", "\t", "\x00", "\x7f", "é", "日本", "🙂", "\u00a0",
		"\u2028", "\U000E0001", "\xff", "<|endoftext|>", ""}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func randomMessages(rng *rand.Rand) []Message {
	roles := []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool}
	msgs := make([]Message, rng.IntN(5))
	for i := range msgs {
		m := Message{Role: roles[rng.IntN(len(roles))], Name: randomText(rng)}
		switch rng.IntN(4) {
		case 0:
			m.Content = randomText(rng)
		case 1:
			m.Parts = []ContentPart{} // sent as an empty list
		case 2:
			for range 1 + rng.IntN(3) {
				switch rng.IntN(5) {
				case 0:
					m.Parts = append(m.Parts, TextPart(randomText(rng)))
				case 1:
					m.Parts = append(m.Parts, ContentPart{Type: "image_url", ImageURL: &ImageURL{URL: "data:image/png;base64," + randomText(rng)}})
				case 2:
					m.Parts = append(m.Parts, ContentPart{Type: "image_url", ImageURL: &ImageURL{URL: randomText(rng), Detail: "high"}})
				case 3: // parts whose fields do not make the usual text or image part
					odd := []ContentPart{{Type: "text"}, {Text: randomText(rng)}, {Type: "image_url"},
						{Type: "text", Text: "t", ImageURL: &ImageURL{URL: "u"}}, {Type: "image_url", Text: "t", ImageURL: &ImageURL{URL: "u"}},
						{Type: "text", Raw: json.RawMessage(`{"type":"text","text":"hi\\n","cache_control":{"type":"ephemeral"}}`)}}
					m.Parts = append(m.Parts, odd[rng.IntN(len(odd))])
				default:
					raw, _ := json.Marshal(map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": randomText(rng), "format": "wav"}, "x": nil})
					m.Parts = append(m.Parts, ContentPart{Type: "input_audio", Raw: raw})
				}
			}
		default:
			m.ToolCalls = []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: randomText(rng)}}}
			m.ToolCallID = randomText(rng)
		}
		msgs[i] = m
	}
	return msgs
}

// The default counter gives the gateway's admission estimate of the body the encoder sends, as
// internal/quota computes it from the JSON (itself checked against Python).
func TestAdmissionEstimateIsTheGatewaysOfTheBodySent(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	c := defaultConfig()
	for i := range 3000 {
		msgs := randomMessages(rng)
		body, err := c.renderChat(&ChatRequest{Model: "m", Messages: msgs}, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := quota.ChatEstimate(body)
		if err != nil {
			t.Fatal(err)
		}
		if got := admissionEstimate(msgs); got != want {
			t.Fatalf("case %d: admissionEstimate = %d, the gateway's estimate of %s is %d", i, got, body, want)
		}
	}
}

// A counter's odd values and a request's odd bounds never make a negative or wrapped sum.
func TestGuardArithmeticBounds(t *testing.T) {
	t.Parallel()
	c := defaultConfig()
	c.tokenCounter = func([]Message) int { return -5 }
	if n := c.countTokens(nil); n != 0 {
		t.Errorf("a negative count gives %d; want 0", n)
	}
	for _, tc := range []struct {
		req  ChatRequest
		want int
	}{
		{ChatRequest{}, 0},
		{ChatRequest{MaxTokens: Ptr(-3)}, 0},
		{ChatRequest{MaxTokens: Ptr(math.MaxInt)}, math.MaxInt},
		{ChatRequest{Extra: map[string]any{"max_completion_tokens": 1e300}}, 0},
		{ChatRequest{Extra: map[string]any{"max_completion_tokens": math.NaN()}}, 0},
		{ChatRequest{Extra: map[string]any{"max_completion_tokens": int64(-1)}}, 0},
		{ChatRequest{Extra: map[string]any{"max_completion_tokens": json.Number("12")}}, 12},
		{ChatRequest{Extra: map[string]any{"max_completion_tokens": "12"}}, 0},
	} {
		if got := answerTokens(&tc.req); got != tc.want {
			t.Errorf("answerTokens(%+v) = %d; want %d", tc.req, got, tc.want)
		}
	}
	g := &windowGuard{c: c, req: &ChatRequest{MaxTokens: Ptr(math.MaxInt)}, input: math.MaxInt, counted: true}
	if addCount(g.input, answerTokens(g.req)) != math.MaxInt {
		t.Error("the sum wrapped")
	}
}

// BenchmarkWindowGuardCheck is the guard's own work on one request, the catalogue cached: the
// catalogue's key, the model's lookup and the default count, against the count alone.
func BenchmarkWindowGuardCheck(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"a","context_length":1000},{"id":"llama-3.3-70b","context_length":131072}]}`)
	}))
	defer srv.Close()
	client, err := NewClient(WithBaseURL(srv.URL), WithAPIKey("sk-bench"), WithContextGuard())
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, twice: don't it? 1234567890\n", 25)
	req := &ChatRequest{Model: "llama-3.3-70b", MaxTokens: Ptr(1000), Messages: []Message{SystemMessage(text), UserMessage(text),
		AssistantMessage(text), UserMessageParts(TextPart(text), ImageURLPart("https://example.com/cat.png"))}}
	if err := client.cfg.windowGuard(req).check(context.Background(), req.Model); err != nil {
		b.Fatal(err)
	}
	b.Run("count", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			admissionEstimate(req.Messages)
		}
	})
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if client.cfg.windowGuard(req).check(context.Background(), req.Model) != nil {
				b.Fatal("refused")
			}
		}
	})
}

// The default counter agrees with the gateway's estimate of the body sent, for any messages a
// server or a caller can make, and never panics.
func FuzzAdmissionEstimate(f *testing.F) {
	f.Add(`[{"role":"user","content":"hi"}]`)
	f.Add(`[{"role":"user","content":[{"type":"text","text":"a'\"\\n"},{"type":"image_url","image_url":{"url":"data:x","detail":"low"}},{"type":"input_audio","input_audio":{"data":null}}]}]`)
	f.Add(`[{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":[]}]`)
	c := defaultConfig()
	f.Fuzz(func(t *testing.T, data string) {
		var msgs []Message
		if json.Unmarshal([]byte(data), &msgs) != nil {
			return
		}
		got := admissionEstimate(msgs)
		body, err := c.renderChat(&ChatRequest{Messages: msgs}, 0, false)
		if err != nil {
			return // not sendable: nothing to compare
		}
		want, err := quota.ChatEstimate(body)
		if err != nil {
			t.Fatalf("the gateway's estimate of %s: %v", body, err)
		}
		if got != want {
			t.Fatalf("admissionEstimate = %d; the gateway's estimate of %s is %d", got, body, want)
		}
	})
}
