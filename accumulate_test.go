package infergate_test

import (
	"encoding/json"
	"reflect"
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
		!reflect.DeepEqual(m.ToolCalls, []infergate.ToolCall{call("a", "f", `{"q":1}`), call("b", "g", "{}")}) {
		t.Errorf("completion message = %+v", m)
	}
}

// A call with no arguments ("{}") in a stream that no chunk finishes, as Ollama's OpenAI layer sends
// it when the done reason is empty: what Add returned plus what Flush gives back at the end of the
// fold concatenate to the call's arguments, "{}".
func TestChatAccumulatorFlushReleasesHeldArguments(t *testing.T) {
	t.Parallel()
	events := []string{
		`{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_x1","index":0,"type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	}
	var acc infergate.ChatAccumulator
	var forwarded []infergate.ChatCompletionChunk
	for _, e := range events {
		var chunk infergate.ChatCompletionChunk
		if err := json.Unmarshal([]byte(e), &chunk); err != nil {
			t.Fatal(err)
		}
		forwarded = append(forwarded, acc.Add(chunk))
	}
	last, ok := acc.Flush()
	if !ok || last.ID != "chatcmpl-7" || last.Model != "llama3.2" {
		t.Fatalf("Flush gave %+v, %v", last, ok)
	}
	forwarded = append(forwarded, last)
	var args, name string
	for _, c := range forwarded {
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index != 0 {
					t.Fatalf("fragment %+v", tc)
				}
				args += tc.Function.Arguments
				name += tc.Function.Name
			}
		}
	}
	if args != "{}" || name != "get_time" {
		t.Fatalf("forwarded call %q(%q), want get_time({})", name, args)
	}
	if m := acc.Completion().Choices[0].Message; !reflect.DeepEqual(m.ToolCalls, []infergate.ToolCall{call("call_x1", "get_time", "{}")}) {
		t.Fatalf("completion message = %+v", m)
	}
	if again, ok := acc.Flush(); ok {
		t.Fatalf("a second Flush gave %+v", again)
	}
	// Folding goes on after Flush: a later fragment extends the arguments already sent.
	more := acc.Add(infergate.ChatCompletionChunk{Choices: []infergate.ChunkChoice{{Delta: infergate.Delta{
		ToolCalls: []infergate.ToolCallDelta{{Index: 0, Function: infergate.FunctionCallDelta{Arguments: " "}}}}}}})
	if got := more.Choices[0].Delta.ToolCalls[0].Function.Arguments; got != " " || acc.Completion().Choices[0].Message.ToolCalls[0].Function.Arguments != "{} " {
		t.Fatalf("after Flush, Add returned %q and the completion holds %+v", got, acc.Completion().Choices[0].Message.ToolCalls)
	}
}
