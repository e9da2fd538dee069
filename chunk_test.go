package infergate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go"
)

func TestChunkAccessors(t *testing.T) {
	t.Parallel()
	calls := []infergate.ToolCallDelta{{Index: 0, ID: "call_1", Function: infergate.FunctionCallDelta{Name: "f", Arguments: `{"a"`}}}
	for _, tt := range []struct {
		name            string
		chunk           infergate.ChatCompletionChunk
		text, reasoning string
		calls           []infergate.ToolCallDelta
	}{
		{name: "no choice", chunk: infergate.ChatCompletionChunk{}},
		{name: "empty tool-call list", chunk: infergate.ChatCompletionChunk{Choices: []infergate.ChunkChoice{{Delta: infergate.Delta{ToolCalls: []infergate.ToolCallDelta{}}}}}},
		{name: "first choice", chunk: infergate.ChatCompletionChunk{Choices: []infergate.ChunkChoice{
			{Delta: infergate.Delta{Content: "Hi", Reasoning: "think", ToolCalls: calls}},
			{Index: 1, Delta: infergate.Delta{Content: "other", Reasoning: "other"}},
		}}, text: "Hi", reasoning: "think", calls: calls},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.chunk.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q", got, tt.text)
			}
			if got := tt.chunk.Reasoning(); got != tt.reasoning {
				t.Errorf("Reasoning() = %q, want %q", got, tt.reasoning)
			}
			got := tt.chunk.ToolCalls()
			if diff := cmp.Diff(tt.calls, got); diff != "" || (tt.calls == nil) != (got == nil) {
				t.Errorf("ToolCalls() = %#v (-want +got):\n%s", got, diff)
			}
		})
	}
}
