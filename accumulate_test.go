package infergate_test

import (
	"encoding/json"
	"testing"

	"github.com/infergate/infergate-go"
)

// TestChatAccumulatorFoldsDecodedChunks folds chunks decoded with json.Unmarshal, as a proxy would,
// including fragments without an index, and leaves the caller's chunks untouched.
func TestChatAccumulatorFoldsDecodedChunks(t *testing.T) {
	t.Parallel()
	events := []string{
		`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","reasoning":"think "}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"","function":{"name":"f","arguments":"{\"q\":1}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
	}
	var acc infergate.ChatAccumulator
	for i, e := range events {
		var chunk infergate.ChatCompletionChunk
		if err := json.Unmarshal([]byte(e), &chunk); err != nil {
			t.Fatal(err)
		}
		before := mustMarshal(t, chunk)
		cleaned := acc.Add(chunk)
		if mustMarshal(t, chunk) != before {
			t.Errorf("chunk %d was modified by Add", i)
		}
		for _, tc := range cleaned.Choices[0].Delta.ToolCalls {
			if tc.Index < 0 {
				t.Errorf("chunk %d: unresolved index in %+v", i, tc)
			}
		}
	}
	m := acc.Completion().Choices[0].Message
	if !acc.Finished() || m.Reasoning != "think " || len(m.ToolCalls) != 2 ||
		m.ToolCalls[0] != call("a", "f", `{"q":1}`) || m.ToolCalls[1] != call("b", "g", "{}") {
		t.Errorf("completion message = %+v", m)
	}
}
