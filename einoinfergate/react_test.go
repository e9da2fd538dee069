package einoinfergate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

type cityInput struct {
	City string `json:"city" jsonschema:"description=the city"`
}

type celsiusInput struct {
	Celsius float64 `json:"celsius"`
}

// tripModel is a scripted model that needs two rounds of tools: the weather of two cities at
// once (parallel calls, streamed with the quirks of real providers), then a unit conversion of
// the warmer one, then the answer, which quotes what the tools said.
func tripModel(r gatewaytest.Request) gatewaytest.Reply {
	q := gatewaytest.Quirks{EmptyArgsFirst: true, BlankIDs: true, ArgChunkSize: 3, ReasoningAs: "reasoning", InterleaveToolCalls: true}
	var results []string
	for _, turn := range r.Turns() {
		if turn.Role == "tool" {
			results = append(results, turn.Content)
		}
	}
	switch len(results) {
	case 0:
		return gatewaytest.Reply{Reasoning: "I need both forecasts.", Quirks: q, ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_rome", Name: "weather", Arguments: `{"city":"Rome"}`},
			{ID: "call_oslo", Name: "weather", Arguments: `{"city":"Oslo"}`},
		}}
	case 2:
		return gatewaytest.Reply{Reasoning: "Rome is warmer; convert it.", Quirks: q, ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_conv", Name: "to_fahrenheit", Arguments: `{"celsius":24}`},
		}}
	default:
		return gatewaytest.Reply{Content: "Go to Rome: " + strings.Join(results, "; "), Quirks: q}
	}
}

func newTripAgent(t *testing.T) (*react.Agent, *gatewaytest.Server) {
	t.Helper()
	srv := gatewaytest.New(t, gatewaytest.WithResponder(tripModel))
	chat, err := einoinfergate.NewChatModel(srv.Client(), gatewaytest.DefaultModel)
	if err != nil {
		t.Fatal(err)
	}
	weather, err := utils.InferTool("weather", "The weather in a city.", func(_ context.Context, in cityInput) (string, error) {
		return map[string]string{"Rome": "Rome 24 °C", "Oslo": "Oslo 3 °C"}[in.City], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	convert, err := utils.InferTool("to_fahrenheit", "Celsius to Fahrenheit.", func(_ context.Context, in celsiusInput) (string, error) {
		return fmt.Sprintf("%.1f °F", in.Celsius*9/5+32), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := react.NewAgent(context.Background(), &react.AgentConfig{
		ToolCallingModel: chat,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{weather, convert}},
		MaxStep:          10,
	})
	if err != nil {
		t.Fatal(err)
	}
	return agent, srv
}

func TestReactAgentRunsToolsOverSeveralSteps(t *testing.T) {
	t.Parallel()
	for _, streaming := range []bool{false, true} {
		agent, srv := newTripAgent(t)
		input := question("Rome or Oslo this weekend?")
		var answer *schema.Message
		var err error
		if streaming {
			var sr *schema.StreamReader[*schema.Message]
			if sr, err = agent.Stream(context.Background(), input); err == nil {
				answer, err = schema.ConcatMessageStream(sr)
			}
		} else {
			answer, err = agent.Generate(context.Background(), input)
		}
		if err != nil {
			t.Fatalf("stream %v: %v", streaming, err)
		}
		if want := "Go to Rome: Rome 24 °C; Oslo 3 °C; 75.2 °F"; answer.Content != want {
			t.Fatalf("stream %v: answer %q, want %q", streaming, answer.Content, want)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("stream %v: %d model turns, want 3", streaming, len(reqs))
		}
		// The last turn saw the whole exchange: both calls with their reasoning, and each result
		// answering its call.
		turns := reqs[2].Turns()
		var calls, answered []string
		for _, turn := range turns {
			for _, c := range turn.ToolCalls {
				calls = append(calls, c.ID+" "+c.Arguments)
			}
			if turn.ToolCallID != "" {
				answered = append(answered, turn.ToolCallID)
			}
		}
		wantCalls := []string{`call_rome {"city":"Rome"}`, `call_oslo {"city":"Oslo"}`, `call_conv {"celsius":24}`}
		if fmt.Sprint(calls) != fmt.Sprint(wantCalls) || fmt.Sprint(answered) != "[call_rome call_oslo call_conv]" {
			t.Fatalf("stream %v: calls %q answered by %q", streaming, calls, answered)
		}
		if turns[1].Reasoning != "I need both forecasts." {
			t.Fatalf("stream %v: reasoning sent back %q", streaming, turns[1].Reasoning)
		}
	}
}

// preambleModel writes a sentence before its tool call, as Claude-like models do, then answers
// with the tool's result.
func preambleModel(r gatewaytest.Request) gatewaytest.Reply {
	for _, turn := range r.Turns() {
		if turn.Role == "tool" {
			return gatewaytest.Reply{Content: "It is " + turn.Content + "."}
		}
	}
	return gatewaytest.Reply{Content: "Let me look that up.",
		ToolCalls: []gatewaytest.ToolCall{{ID: "call_rome", Name: "weather", Arguments: `{"city":"Rome"}`}}}
}

// preambleAgent has a react agent over preambleModel answer, streaming or not, checking for tool
// calls with checker (eino's default when nil), and reports how often the tool ran.
func preambleAgent(t *testing.T, streaming bool, checker func(context.Context, *schema.StreamReader[*schema.Message]) (bool, error)) (string, int) {
	t.Helper()
	srv := gatewaytest.New(t, gatewaytest.WithResponder(preambleModel))
	chat, err := einoinfergate.NewChatModel(srv.Client(), gatewaytest.DefaultModel)
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	weather, err := utils.InferTool("weather", "The weather in a city.", func(_ context.Context, in cityInput) (string, error) {
		runs.Add(1)
		return in.City + " 24 °C", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := react.NewAgent(context.Background(), &react.AgentConfig{ToolCallingModel: chat,
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{weather}}, StreamToolCallChecker: checker})
	if err != nil {
		t.Fatal(err)
	}
	var answer *schema.Message
	if streaming {
		var sr *schema.StreamReader[*schema.Message]
		if sr, err = agent.Stream(context.Background(), question("Weather in Rome?")); err == nil {
			answer, err = schema.ConcatMessageStream(sr)
		}
	} else {
		answer, err = agent.Generate(context.Background(), question("Weather in Rome?"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return answer.Content, int(runs.Load())
}

// eino's default checker looks at the first chunk with content only: a model that writes before
// its call has its preamble returned as the streamed answer, and the tool never runs, while
// Generate runs it. The package's doc says so; this test tells when eino changes it.
func TestReactDefaultCheckerStopsAtPreamble(t *testing.T) {
	t.Parallel()
	if answer, runs := preambleAgent(t, true, nil); answer != "Let me look that up." || runs != 0 {
		t.Fatalf("Stream: answer %q after %d tool runs, want the preamble and none", answer, runs)
	}
	if answer, runs := preambleAgent(t, false, nil); answer != "It is Rome 24 °C." || runs != 1 {
		t.Fatalf("Generate: answer %q after %d tool runs, want the tool's answer after one", answer, runs)
	}
}

func TestStreamToolCallCheckerFindsCallAfterText(t *testing.T) {
	t.Parallel()
	answer, runs := preambleAgent(t, true, einoinfergate.StreamToolCallChecker)
	if answer != "It is Rome 24 °C." || runs != 1 {
		t.Fatalf("answer %q after %d tool runs, want the tool's answer after one", answer, runs)
	}
}

// The checker reports a stream without calls as none, and a failed stream as its error.
func TestStreamToolCallCheckerWithoutCalls(t *testing.T) {
	t.Parallel()
	sr, sw := schema.Pipe[*schema.Message](3)
	sw.Send(schema.AssistantMessage("just text", nil), nil)
	sw.Send(nil, nil)
	sw.Close()
	if calls, err := einoinfergate.StreamToolCallChecker(context.Background(), sr); calls || err != nil {
		t.Fatalf("text alone: %v, %v", calls, err)
	}
	boom := errors.New("boom")
	sr, sw = schema.Pipe[*schema.Message](2)
	sw.Send(schema.AssistantMessage("text", nil), nil)
	sw.Send(nil, boom)
	sw.Close()
	if calls, err := einoinfergate.StreamToolCallChecker(context.Background(), sr); calls || !errors.Is(err, boom) {
		t.Fatalf("failed stream: %v, %v", calls, err)
	}
}
