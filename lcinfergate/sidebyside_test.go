package lcinfergate_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

// sideBySide is one streamed tool-call reply, as real providers send it.
type sideBySide struct {
	name          string
	reply         gatewaytest.Reply
	noIndexes     bool
	theirsCalls   bool // whether langchaingo's OpenAI LLM reads the calls right, as observed
	theirsReasons bool // whether it reads the reasoning right, as observed
	// inBandError: the stream fails after a 200, so both must fail; theirsErr is whether theirs did.
	inBandError bool
	theirsErr   bool
}

var sideBySideCases = []sideBySide{
	{name: "plain fragments", reply: gatewaytest.Reply{ToolCalls: parallelCalls, Quirks: gatewaytest.Quirks{ArgChunkSize: 4}}, theirsCalls: true, theirsReasons: true},
	{name: "placeholder {} first", reply: gatewaytest.Reply{ToolCalls: parallelCalls, Quirks: gatewaytest.Quirks{EmptyArgsFirst: true, ArgChunkSize: 4}}, theirsCalls: false, theirsReasons: true},
	{name: "blank ids on fragments", reply: gatewaytest.Reply{ToolCalls: parallelCalls, Quirks: gatewaytest.Quirks{BlankIDs: true, ArgChunkSize: 4}}, theirsCalls: true, theirsReasons: true},
	{name: "interleaved calls", reply: gatewaytest.Reply{ToolCalls: parallelCalls, Quirks: gatewaytest.Quirks{InterleaveToolCalls: true, ArgChunkSize: 4}}, theirsCalls: false, theirsReasons: true},
	{name: "no indexes", noIndexes: true, reply: gatewaytest.Reply{ToolCalls: parallelCalls, Quirks: gatewaytest.Quirks{ArgChunkSize: 4}}, theirsCalls: true, theirsReasons: true},
	{name: "reasoning_content", reply: gatewaytest.Reply{Reasoning: "Two lookups.", ToolCalls: parallelCalls}, theirsCalls: true, theirsReasons: true},
	{name: "reasoning spelled reasoning", reply: gatewaytest.Reply{Reasoning: "Two lookups.", ToolCalls: parallelCalls, Quirks: gatewaytest.Quirks{ReasoningAs: "reasoning"}}, theirsCalls: true, theirsReasons: false},
	{name: "in-band error after the calls began", inBandError: true, reply: gatewaytest.Reply{ToolCalls: parallelCalls,
		Quirks: gatewaytest.Quirks{ArgChunkSize: 4, InBandError: &gatewaytest.StreamErrorEvent{After: 4, Message: "provider died"}}},
		theirsErr: false},
	{name: "thinking parts", reply: gatewaytest.Reply{Reasoning: "Two lookups.", ToolCalls: parallelCalls, Quirks: gatewaytest.Quirks{ReasoningAs: "thinking"}}, theirsCalls: true, theirsReasons: false},
}

// observed is what one LLM made of a reply.
type observed struct {
	err       error
	calls     []llms.ToolCall
	reasoning string
}

func (o observed) callsRight() bool { return o.err == nil && cmp.Equal(o.calls, wantCalls()) }

func (o observed) String() string {
	if o.err != nil {
		return "error: " + o.err.Error()
	}
	var parts []string
	for _, c := range o.calls {
		parts = append(parts, fmt.Sprintf("%s %s(%s)", c.ID, c.FunctionCall.Name, c.FunctionCall.Arguments))
	}
	return strings.Join(parts, "; ")
}

// summary is a cell of the table: the calls, marked wrong when they are, and the reasoning.
func (o observed) summary(reasoning string) string {
	if o.err != nil {
		return "error: " + o.err.Error()
	}
	out := "calls right"
	if !o.callsRight() {
		out = "calls wrong: " + o.String()
	}
	if reasoning != "" {
		out += fmt.Sprintf(", reasoning %q", o.reasoning)
	}
	return out
}

func run(llm llms.Model) observed {
	resp, err := llm.GenerateContent(context.Background(), []llms.MessageContent{human("weather and time in Paris?")},
		weatherTools, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	if err != nil {
		return observed{err: err}
	}
	if len(resp.Choices) == 0 {
		return observed{err: fmt.Errorf("no choices")}
	}
	return observed{calls: resp.Choices[0].ToolCalls, reasoning: resp.Choices[0].ReasoningContent}
}

// TestSideBySideWithLangchaingoOpenAI streams the same tool-call replies through langchaingo's own
// OpenAI LLM, pointed at the fake's /api/v1, and through lcinfergate. Ours must read every one
// right; what theirs does is asserted too, as a record that stays true (it is not ours to fix).
func TestSideBySideWithLangchaingoOpenAI(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	rows := map[string]string{}
	t.Cleanup(func() {
		var b strings.Builder
		b.WriteString("\n| streamed reply | lcinfergate | langchaingo openai |\n| --- | --- | --- |\n")
		for _, tc := range sideBySideCases {
			b.WriteString(rows[tc.name])
		}
		t.Log(b.String())
	})
	for _, tc := range sideBySideCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := gatewaytest.New(t, gatewaytest.WithReplies(tc.reply, tc.reply))
			var stripped atomic.Int64
			var clientOpts []infergate.Option
			theirHTTP := http.DefaultClient
			if tc.noIndexes {
				clientOpts = append(clientOpts, withoutIndexes(&stripped))
				theirHTTP = &http.Client{Transport: stripIndexes{http.DefaultTransport, &stripped}}
			}
			ours := run(lcinfergate.New(s.Client(clientOpts...), "llama-3.3-70b"))
			theirLLM, err := openai.New(openai.WithBaseURL(s.URL()+"/api/v1"), openai.WithToken(gatewaytest.DefaultAPIKey),
				openai.WithModel("llama-3.3-70b"), openai.WithHTTPClient(theirHTTP))
			if err != nil {
				t.Fatal(err)
			}
			theirs := run(theirLLM)
			mu.Lock()
			rows[tc.name] = fmt.Sprintf("| %s | %s | %s |\n", tc.name, ours.summary(tc.reply.Reasoning), theirs.summary(tc.reply.Reasoning))
			mu.Unlock()
			if tc.noIndexes && stripped.Load() == 0 {
				t.Error("no fragment lost its index")
			}
			if tc.inBandError {
				var streamErr *infergate.StreamError
				if !errors.As(ours.err, &streamErr) {
					t.Errorf("lcinfergate: err = %v, want an *infergate.StreamError", ours.err)
				}
				if got := theirs.err != nil; got != tc.theirsErr {
					t.Errorf("langchaingo's OpenAI LLM failed: %v, recorded %v: update the record", got, tc.theirsErr)
				}
				return
			}
			if !ours.callsRight() || ours.reasoning != tc.reply.Reasoning {
				t.Errorf("lcinfergate read %v with reasoning %q", ours, ours.reasoning)
			}
			if got := theirs.callsRight(); got != tc.theirsCalls {
				t.Errorf("langchaingo's OpenAI LLM read the calls right: %v, recorded %v: update the record", got, tc.theirsCalls)
			}
			if got := theirs.err == nil && theirs.reasoning == tc.reply.Reasoning; got != tc.theirsReasons {
				t.Errorf("langchaingo's OpenAI LLM read the reasoning right: %v, recorded %v: update the record", got, tc.theirsReasons)
			}
		})
	}
}
