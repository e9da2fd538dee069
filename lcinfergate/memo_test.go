package lcinfergate_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

// heapGrowth returns how much the live heap grew while run ran, measured after a collection before
// and after it; fixture (what exists before, and what keeps the memory) stays alive until then.
// Tests that call it do not run in parallel, so that no other test's memory is counted.
func heapGrowth(fixture any, run func()) int64 {
	var before, after runtime.MemStats
	collect()
	runtime.ReadMemStats(&before)
	run()
	collect()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(fixture)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// toolTurns asks llm one question per conversation, each answered with a call, and returns what the
// caller sends back for the last one: the question, the AI message with its call and its result.
// The call is copied, as a history stored elsewhere (a database) comes back: the tests measure what
// the LLM keeps, not what its caller does.
func toolTurns(t *testing.T, llm *lcinfergate.LLM, conversations int) []llms.MessageContent {
	t.Helper()
	var history []llms.MessageContent
	for i := range conversations {
		history = []llms.MessageContent{human(fmt.Sprint("question ", i))}
		choice := generate(t, llm, history, weatherTools).Choices[0]
		if len(choice.ToolCalls) != 1 {
			t.Fatalf("answer %d has %d calls", i, len(choice.ToolCalls))
		}
		call := choice.ToolCalls[0]
		call.ID = strings.Clone(call.ID)
		call.FunctionCall = &llms.FunctionCall{Name: strings.Clone(call.FunctionCall.Name), Arguments: strings.Clone(call.FunctionCall.Arguments)}
		history = append(history, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: call.ID, Name: "get_weather", Content: "sunny"}}})
	}
	return history
}

// An LLM keeps the reasoning of its tool turns for their next request: keeping a two-byte reasoning
// must not keep the rest of its answer. 16 answers of 4 MB each leave far less than one of them.
func TestKeptReasoningLetsTheAnswerGo(t *testing.T) {
	const answers, size = 16, 4 << 20
	text := strings.Repeat("All work and no play makes Jack a dull boy.\n", size/44)
	s := gatewaytest.New(t, gatewaytest.WithResponder(func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Content: text, Reasoning: "ok",
			ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}
	}))
	llm := lcinfergate.New(s.Client(), "")
	var last []llms.MessageContent
	grown := heapGrowth(llm, func() { last = toolTurns(t, llm, answers) })
	if grown > size {
		t.Errorf("the reasoning of %d answers of %d MiB keeps %.1f MiB on the heap, want less than one answer's",
			answers, size>>20, float64(grown)/(1<<20))
	}
	generate(t, llm, last, weatherTools)
	if got := lastRequest(t, s).Turns()[1].Reasoning; got != "ok" {
		t.Errorf("the last turn sent back the reasoning %q, want %q", got, "ok")
	}
}

// The reasoning an LLM keeps is bounded in bytes, not only in turns: 24 turns of 1 MiB of
// reasoning each keep at most 8 MiB, the newest, which still goes back with its calls.
func TestKeptReasoningIsBoundedInBytes(t *testing.T) {
	const turns, size = 24, 1 << 20
	reasoning := strings.Repeat("Let me think about the weather. ", size/32)
	s := gatewaytest.New(t, gatewaytest.WithResponder(func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Reasoning: reasoning,
			ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}
	}))
	llm := lcinfergate.New(s.Client(), "")
	var last []llms.MessageContent
	grown := heapGrowth(llm, func() { last = toolTurns(t, llm, turns) })
	if grown > 9<<20 {
		t.Errorf("the reasoning of %d turns of 1 MiB each keeps %.1f MiB on the heap, want at most 8 MiB and some",
			turns, float64(grown)/(1<<20))
	}
	generate(t, llm, last, weatherTools)
	if got := lastRequest(t, s).Turns()[1].Reasoning; got != reasoning {
		t.Errorf("the last turn sent back %d bytes of reasoning, want its %d", len(got), len(reasoning))
	}
}

// collect runs the collector twice: what a sync.Pool holds (encoding/json's buffers) goes only on
// the second.
func collect() {
	runtime.GC()
	runtime.GC()
}
