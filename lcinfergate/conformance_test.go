package lcinfergate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/testing/llmtest"
)

// conformanceModel answers the suite's requests as a model would: the weather tool it offers gets
// called, with reasoning; a question in thinking mode gets reasoning and the sum; the rest the
// fake's default answer.
func conformanceModel(r gatewaytest.Request) gatewaytest.Reply {
	turns := r.Turns()
	question := turns[len(turns)-1].Content
	tools, _ := r.JSON["tools"].([]any)
	for _, tool := range tools {
		fn, _ := tool.(map[string]any)["function"].(map[string]any)
		if fn["name"] == "get_weather" {
			return gatewaytest.Reply{Reasoning: "The user wants the weather.",
				ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"location":"San Francisco, US"}`}},
				Quirks:    gatewaytest.Quirks{EmptyArgsFirst: true}}
		}
	}
	if _, thinking := r.JSON["reasoning_effort"]; thinking {
		return gatewaytest.Reply{Reasoning: "25 + 17: 20 + 10 is 30, 5 + 7 is 12.", Content: "42"}
	}
	return gatewaytest.Reply{Content: gatewaytest.DefaultAnswer(question)}
}

// TestConformance runs langchaingo's own suite for models. TestLLM calls t.Parallel itself.
func TestConformance(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithResponder(conformanceModel))
	llm := lcinfergate.New(s.Client(), "llama-3.3-70b")
	if err := llmtest.ValidateLLM(llm); err != nil {
		t.Fatalf("ValidateLLM: %v", err)
	}
	t.Cleanup(func() {
		// The suite's subtests have ended: check that they asked what they are meant to ask.
		var toolTurns, thinkingTurns int
		for _, r := range s.Requests() {
			if strings.Contains(string(r.Body), `"get_weather"`) {
				toolTurns++
			}
			if r.JSON["reasoning_effort"] != nil {
				thinkingTurns++
			}
		}
		if toolTurns == 0 || thinkingTurns == 0 || !slices.ContainsFunc(s.Requests(), func(r gatewaytest.Request) bool {
			return r.JSON["max_tokens"] == 1.0
		}) {
			t.Errorf("the suite sent %d tool requests and %d thinking requests of %d", toolTurns, thinkingTurns, len(s.Requests()))
		}
	})
	llmtest.TestLLM(t, llm)
}
