package genkitinfergate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// What the fake does not script: fragments with no index and no id after the first, a "{}"
// placeholder, reasoning spelled "reasoning", and usage with cached and reasoning tokens.
const (
	rawChunkHead = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":`
	rawUsage     = `{"prompt_tokens":100,"completion_tokens":40,"total_tokens":140,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":30}}`
)

var rawToolStream = rawStream(
	rawChunkHead+`[{"index":0,"delta":{"role":"assistant","reasoning":"Two cities."}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"content":"Checking."}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"city\":"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"Rome\"}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"id":"call_y","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"id":"","function":{"arguments":"{\"city\":\"Bern\"}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	rawChunkHead+`[],"usage":`+rawUsage+`}`,
)

var rawToolAnswer = rawJSON(`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
	"message":{"role":"assistant","content":"Checking.","reasoning":"Two cities.","tool_calls":[
	{"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}},
	{"id":"call_y","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Bern\"}"}}]},
	"finish_reason":"tool_calls"}],"usage":` + rawUsage + `}`)

var wantToolAnswer = []*ai.Part{
	ai.NewReasoningPart("Two cities.", nil),
	ai.NewTextPart("Checking."),
	ai.NewToolRequestPart(&ai.ToolRequest{Ref: "call_x", Name: "get_weather", Input: map[string]any{"city": "Rome"}}),
	ai.NewToolRequestPart(&ai.ToolRequest{Ref: "call_y", Name: "get_weather", Input: map[string]any{"city": "Bern"}}),
}

// A stream without indexes, with placeholders and the other spelling of reasoning: the chunks
// carry reasoning and text as they come and the tool requests whole at the end, and the response
// is what the same answer gives without a stream.
func TestStreamWithoutIndexes(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.FailNext(1, rawToolStream)
	resp, chunks, err := streamed(g, ai.WithPrompt("q"), ai.WithReturnToolRequests(true))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantToolAnswer, resp.Message.Content); d != "" {
		t.Fatalf("answer (-want +got):\n%s", d)
	}
	if u := resp.Usage; u == nil || u.CachedContentTokens != 64 || u.ThoughtsTokens != 30 {
		t.Fatalf("usage %+v", u)
	}
	var got []*ai.Part
	for _, c := range chunks {
		got = append(got, c.Content...)
	}
	// The empty reasoning part after a chunk's lone reasoning part joins the reasoning before it.
	if d := cmp.Diff(wantToolAnswer, merge(got)); d != "" {
		t.Fatalf("streamed parts (-want +got):\n%s", d)
	}
	if last := chunks[len(chunks)-1].Content; len(last) != 2 || !last[0].IsToolRequest() || !last[1].IsToolRequest() {
		t.Fatalf("last chunk %v, want both tool requests", kinds(last))
	}
}

// randomReply is an answer with or without reasoning, content and parallel tool calls, streamed
// with a random set of the quirks providers have.
func randomReply(r *rand.Rand, n int) gatewaytest.Reply {
	var reply gatewaytest.Reply
	if r.IntN(2) == 0 {
		reply.Reasoning = strings.Repeat("think step by step ", 1+r.IntN(3))
	}
	if r.IntN(3) > 0 {
		reply.Content = fmt.Sprintf("Answer %d: it is ünïcode-safe and long enough to split.", n)
	}
	for i := range r.IntN(4) {
		reply.ToolCalls = append(reply.ToolCalls, gatewaytest.ToolCall{ID: fmt.Sprintf("call_%d_%d", n, i),
			Name: []string{"get_weather", "get_time", "lookup"}[i%3], Arguments: fmt.Sprintf(`{"city":"Zürich %d","n":%d}`, i, i)})
	}
	if reply.Content == "" && reply.Reasoning == "" && len(reply.ToolCalls) == 0 {
		reply.Content = "short"
	}
	reply.Usage = &gatewaytest.Usage{PromptTokens: r.IntN(100), CompletionTokens: r.IntN(100)}
	reply.Usage.TotalTokens = reply.Usage.PromptTokens + reply.Usage.CompletionTokens
	reply.Quirks = gatewaytest.Quirks{
		EmptyArgsFirst:      r.IntN(2) == 0,
		BlankIDs:            r.IntN(2) == 0,
		WholeToolCalls:      r.IntN(4) == 0,
		ArgChunkSize:        r.IntN(6),
		FinishOnLastDelta:   r.IntN(2) == 0,
		JunkLines:           r.IntN(3) == 0,
		NoUsageChunk:        r.IntN(3) == 0,
		CRLF:                r.IntN(3) == 0,
		Keepalive:           r.IntN(3) == 0,
		ChunkSize:           r.IntN(3) * 7,
		ContentParts:        r.IntN(3) == 0,
		ReasoningAs:         []string{"", "reasoning_content", "reasoning", "thinking"}[r.IntN(4)],
		InterleaveToolCalls: r.IntN(2) == 0,
	}
	return reply
}

// Whatever the provider's quirks, a streamed answer is the one Generate gives without a stream,
// and its chunks hold the same parts: reasoning and text merged, tool requests whole and last.
func TestStreamMatchesGenerate(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		reply := randomReply(r, n)
		srv.Enqueue(reply, reply)
		want, err := generate(g, ai.WithPrompt("q"), ai.WithReturnToolRequests(true))
		if err != nil {
			t.Fatalf("reply %d: Generate: %v", n, err)
		}
		got, chunks, err := streamed(g, ai.WithPrompt("q"), ai.WithReturnToolRequests(true))
		if err != nil {
			t.Fatalf("reply %d: stream: %v", n, err)
		}
		if d := cmp.Diff(want.Message, got.Message); d != "" {
			t.Fatalf("reply %d %+v: message (-Generate +stream):\n%s", n, reply.Quirks, d)
		}
		if len(want.ToolRequests()) != len(reply.ToolCalls) {
			t.Fatalf("reply %d: %d tool requests, want %d", n, len(want.ToolRequests()), len(reply.ToolCalls))
		}
		for i, tr := range want.ToolRequests() {
			if tr.Ref != reply.ToolCalls[i].ID {
				t.Fatalf("reply %d: tool request %d is %+v, want %+v", n, i, tr, reply.ToolCalls[i])
			}
		}
		var text, reasoning strings.Builder
		var calls int
		for i, c := range chunks {
			text.WriteString(c.Text())
			reasoning.WriteString(c.Reasoning())
			for _, p := range c.Content {
				switch {
				case p.IsText(), p.IsReasoning():
				case p.IsToolRequest() && i == len(chunks)-1:
					calls++
				default:
					t.Fatalf("reply %d: chunk %d of %d has a %v part", n, i, len(chunks), p.Kind)
				}
			}
		}
		if want.Text() != reply.Content || want.Reasoning() != reply.Reasoning {
			t.Fatalf("reply %d: Generate's text %q and reasoning %q, want %q and %q",
				n, want.Text(), want.Reasoning(), reply.Content, reply.Reasoning)
		}
		if text.String() != reply.Content || reasoning.String() != reply.Reasoning || calls != len(reply.ToolCalls) {
			t.Fatalf("reply %d: chunks add up to %q, %q, %d calls; want %q, %q, %d",
				n, text.String(), reasoning.String(), calls, reply.Content, reply.Reasoning, len(reply.ToolCalls))
		}
	}
}

// An error event after the answer began ends the call with the SDK's *infergate.StreamError.
func TestStreamError(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.Enqueue(gatewaytest.Reply{Content: "one two three four five six", Quirks: gatewaytest.Quirks{
		InBandError: &gatewaytest.StreamErrorEvent{After: 3, Message: "provider went away", Status: 502}}})
	_, chunks, err := streamed(g, ai.WithPrompt("q"))
	var se *infergate.StreamError
	if !errors.As(err, &se) || se.StatusCode != 502 || !errors.Is(err, infergate.ErrIncompleteStream) {
		t.Fatalf("error %v, want an *infergate.StreamError with status 502", err)
	}
	if len(chunks) == 0 {
		t.Fatal("no chunk before the error")
	}
}

// A callback's error stops the stream and is genkit's error.
func TestStreamCallbackError(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.Enqueue(gatewaytest.Reply{Content: "one two three four five six"})
	stop := errors.New("enough")
	calls := 0
	_, err := generate(g, ai.WithPrompt("q"), ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error {
		calls++
		return stop
	}))
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("error %v after %d calls, want %v after 1", err, calls, stop)
	}
}

// Streaming through genkit's tool loop: the first turn's tool request comes whole in its last
// chunk, genkit runs the tool, and the second turn's text streams.
func TestStreamToolLoop(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	weather := genkit.DefineTool(g, "weather", "The weather in a city.",
		func(_ *ai.ToolContext, in cityInput) (string, error) { return "sunny in " + in.City, nil })
	srv.Enqueue(
		gatewaytest.Reply{Reasoning: "Look it up.", ToolCalls: []gatewaytest.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Rome"}`}},
			Quirks: gatewaytest.Quirks{EmptyArgsFirst: true, ArgChunkSize: 3, ReasoningAs: "thinking"}},
		gatewaytest.Reply{Respond: func(turns []gatewaytest.Turn) gatewaytest.Reply {
			return gatewaytest.Reply{Content: "It is " + turns[len(turns)-1].Content + "."}
		}},
	)
	resp, chunks, err := streamed(g, ai.WithPrompt("Weather?"), ai.WithTools(weather))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "It is sunny in Rome." {
		t.Fatalf("answer %q", resp.Text())
	}
	var requests []*ai.ToolRequest
	var text string
	for _, c := range chunks {
		for _, p := range c.Content {
			switch {
			case p.IsToolRequest():
				requests = append(requests, p.ToolRequest)
			case p.IsText():
				text += p.Text
			}
		}
	}
	want := []*ai.ToolRequest{{Ref: "c1", Name: "weather", Input: map[string]any{"city": "Rome"}}}
	if d := cmp.Diff(want, requests); d != "" || text != "It is sunny in Rome." {
		t.Fatalf("streamed text %q; tool requests (-want +got):\n%s", text, d)
	}
	if turns := srv.Requests()[1].Turns(); turns[1].Reasoning != "Look it up." {
		t.Fatalf("reasoning not sent back: %+v", turns[1])
	}
}
