package lcinfergate_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

// parallelCalls are two calls of one turn, as a scripted reply sends them.
var parallelCalls = []gatewaytest.ToolCall{
	{ID: "call_weather", Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`},
	{ID: "call_time", Name: "get_time", Arguments: `{"zone":"Europe/Paris"}`},
}

// wantCalls is what a langchaingo caller must read of parallelCalls.
func wantCalls() []llms.ToolCall {
	var out []llms.ToolCall
	for _, c := range parallelCalls {
		out = append(out, llms.ToolCall{ID: c.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	return out
}

var weatherTools = llms.WithTools([]llms.Tool{
	{Type: "function", Function: &llms.FunctionDefinition{Name: "get_weather", Parameters: map[string]any{"type": "object"}}},
	{Type: "function", Function: &llms.FunctionDefinition{Name: "get_time", Parameters: map[string]any{"type": "object"}}},
})

// quirkCases are the stream shapes of real providers that a tool-call answer must survive.
var quirkCases = map[string]gatewaytest.Quirks{
	"plain":                  {},
	"placeholder {}":         {EmptyArgsFirst: true},
	"blank ids":              {BlankIDs: true, ArgChunkSize: 3},
	"small fragments":        {ArgChunkSize: 2},
	"interleaved":            {InterleaveToolCalls: true, ArgChunkSize: 4},
	"whole calls":            {WholeToolCalls: true},
	"everything at once":     {EmptyArgsFirst: true, BlankIDs: true, ArgChunkSize: 5, InterleaveToolCalls: true, FinishOnLastDelta: true, NoUsageChunk: true},
	"reasoning as thinking":  {ReasoningAs: "thinking", EmptyArgsFirst: true},
	"reasoning as reasoning": {ReasoningAs: "reasoning", ArgChunkSize: 3},
}

func TestToolCallsUnderEveryQuirk(t *testing.T) {
	t.Parallel()
	for name, q := range quirkCases {
		for _, streamed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streamed=%v", name, streamed), func(t *testing.T) {
				t.Parallel()
				s := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Reasoning: "Two lookups.", ToolCalls: parallelCalls, Quirks: q}))
				var opts []llms.CallOption
				if streamed {
					opts = append(opts, streaming(new([]string)))
				}
				resp := generate(t, lcinfergate.New(s.Client(), ""), []llms.MessageContent{human("weather and time in Paris?")},
					append(opts, weatherTools)...)
				c := resp.Choices[0]
				if diff := cmp.Diff(wantCalls(), c.ToolCalls); diff != "" {
					t.Errorf("tool calls (-want +got):\n%s", diff)
				}
				if c.FuncCall == nil || c.FuncCall.Name != "get_weather" || c.StopReason != "tool_calls" || c.ReasoningContent != "Two lookups." {
					t.Errorf("FuncCall %+v, StopReason %q, ReasoningContent %q", c.FuncCall, c.StopReason, c.ReasoningContent)
				}
			})
		}
	}
}

func TestToolCallsWithoutIndexes(t *testing.T) {
	t.Parallel()
	for name, q := range map[string]gatewaytest.Quirks{
		"one after the other":    {ArgChunkSize: 4},
		"placeholder, blank ids": {EmptyArgsFirst: true, BlankIDs: true, ArgChunkSize: 3},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{ToolCalls: parallelCalls, Quirks: q}))
			var stripped atomic.Int64
			client := s.Client(withoutIndexes(&stripped))
			resp := generate(t, lcinfergate.New(client, ""), []llms.MessageContent{human("weather and time?")},
				weatherTools, streaming(new([]string)))
			if diff := cmp.Diff(wantCalls(), resp.Choices[0].ToolCalls); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if stripped.Load() == 0 {
				t.Error("no fragment lost its index: the test tests nothing")
			}
		})
	}
}

// TestReasoningGoesBackWithTheCalls runs a tool turn the way langchaingo callers write it: the
// answer's calls copied into an AI message, the results in tool messages. The reasoning, which
// MessageContent cannot hold, must still reach the next request beside those calls.
func TestReasoningGoesBackWithTheCalls(t *testing.T) {
	t.Parallel()
	for _, spelling := range []string{"reasoning_content", "reasoning", "thinking"} {
		for _, streamed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streamed=%v", spelling, streamed), func(t *testing.T) {
				t.Parallel()
				s := gatewaytest.New(t, gatewaytest.WithReplies(
					gatewaytest.Reply{Reasoning: "I need the weather.", ToolCalls: parallelCalls[:1],
						Quirks: gatewaytest.Quirks{ReasoningAs: spelling, EmptyArgsFirst: true}},
					gatewaytest.Reply{Content: "Sunny, 21°C."},
				))
				llm := lcinfergate.New(s.Client(), "")
				var opts []llms.CallOption
				if streamed {
					opts = append(opts, streaming(new([]string)))
				}
				history := []llms.MessageContent{human("weather in Paris?")}
				first := generate(t, llm, history, append(opts, weatherTools)...).Choices[0]
				if first.ReasoningContent != "I need the weather." {
					t.Fatalf("ReasoningContent = %q", first.ReasoningContent)
				}
				ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
				for _, tc := range first.ToolCalls {
					ai.Parts = append(ai.Parts, tc)
				}
				history = append(history, ai, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
					llms.ToolCallResponse{ToolCallID: first.ToolCalls[0].ID, Name: "get_weather", Content: "sunny, 21"}}},
					llms.TextParts(llms.ChatMessageTypeAI, "Sunny."), human("thanks"))
				generate(t, llm, history, append(opts, weatherTools)...)
				turns := lastRequest(t, s).Turns()
				if len(turns) != 5 {
					t.Fatalf("%d turns sent, want 5: %+v", len(turns), turns)
				}
				if turns[1].Reasoning != "I need the weather." || len(turns[1].ToolCalls) != 1 || turns[1].ToolCalls[0].Arguments != parallelCalls[0].Arguments {
					t.Errorf("assistant turn sent back as %+v, want its calls with their reasoning", turns[1])
				}
				if turns[2].ToolCallID != parallelCalls[0].ID || turns[2].Content != "sunny, 21" || turns[3].Reasoning != "" {
					t.Errorf("tool result %+v, plain answer %+v", turns[2], turns[3])
				}
			})
		}
	}
}

// withoutIndexes is an HTTP client whose streams lose the "index" of every tool-call fragment, as
// some providers send them; stripped counts the indexes removed.
func withoutIndexes(stripped *atomic.Int64) infergate.Option {
	return infergate.WithHTTPClient(&http.Client{Transport: stripIndexes{http.DefaultTransport, stripped}})
}

// stripIndexes reads a response and removes "index" from each tool-call fragment of its events.
type stripIndexes struct {
	base     http.RoundTripper
	stripped *atomic.Int64
}

func (s stripIndexes) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if err != nil || resp.Header.Get("Content-Type") != "text/event-stream" {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(withoutToolCallIndexes(body, s.stripped)))
	resp.ContentLength = -1
	return resp, nil
}

// withoutToolCallIndexes rewrites each data event of a stream without the tool calls' indexes.
func withoutToolCallIndexes(stream []byte, stripped *atomic.Int64) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(stream))
	for sc.Scan() {
		line := sc.Bytes()
		var ev map[string]any
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok && json.Unmarshal(data, &ev) == nil {
			choices, _ := ev["choices"].([]any)
			for _, c := range choices {
				delta, _ := c.(map[string]any)["delta"].(map[string]any)
				calls, _ := delta["tool_calls"].([]any)
				for _, tc := range calls {
					if m, ok := tc.(map[string]any); ok {
						if _, had := m["index"]; had {
							delete(m, "index")
							stripped.Add(1)
						}
					}
				}
			}
			line, _ = json.Marshal(ev)
			line = append([]byte("data: "), line...)
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// Two conversations on one LLM whose calls look alike (a provider that numbers its call ids the
// same way in every answer) keep their own reasoning: each follow-up sends back its own, never
// the other conversation's.
func TestReasoningStaysInItsConversation(t *testing.T) {
	t.Parallel()
	call := []gatewaytest.ToolCall{{ID: "call_0", Name: "get_weather", Arguments: `{"city":"Paris"}`}}
	reasoning := map[string]string{"Alice": "Alice lives at 1 Rue Secrète.", "Bob": "Bob wants to know."}
	s := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{Reasoning: reasoning["Alice"], ToolCalls: call},
		gatewaytest.Reply{Reasoning: reasoning["Bob"], ToolCalls: call},
		gatewaytest.Reply{Content: "Sunny."}, gatewaytest.Reply{Content: "Sunny."},
	))
	llm := lcinfergate.New(s.Client(), "")
	histories := map[string][]llms.MessageContent{}
	for _, who := range []string{"Alice", "Bob"} {
		history := []llms.MessageContent{human(who + ": weather at home?")}
		first := generate(t, llm, history, weatherTools).Choices[0]
		histories[who] = append(history, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{first.ToolCalls[0]}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: first.ToolCalls[0].ID, Name: "get_weather", Content: "sunny"}}})
	}
	for _, who := range []string{"Alice", "Bob"} {
		generate(t, llm, histories[who], weatherTools)
		if got := lastRequest(t, s).Turns()[1].Reasoning; got != reasoning[who] {
			t.Errorf("%s's follow-up sent back the reasoning %q, want %q", who, got, reasoning[who])
		}
	}
}
