package crosscheck

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/infergate/infergate-go/gatewaytest"
)

// TestStreamQuirks feeds each of the fake's stream quirks to openai-go's stream and
// ChatCompletionAccumulator, and records what comes out: the quirks it tolerates give the same
// answer as a clean stream, the others show how it breaks.
func TestStreamQuirks(t *testing.T) {
	paris := []gatewaytest.ToolCall{{ID: "call_a", Name: "weather", Arguments: `{"city":"Paris"}`}}
	two := append(slices.Clone(paris), gatewaytest.ToolCall{ID: "call_b", Name: "time", Arguments: `{"tz":"CET"}`})
	parisCall := []call{{"call_a", "weather", `{"city":"Paris"}`}}
	twoCalls := append(slices.Clone(parisCall), call{"call_b", "time", `{"tz":"CET"}`})
	const text = "Hello there, friend"

	tests := []struct {
		name    string
		reply   gatewaytest.Reply
		content string
		calls   []call
		finish  string
		// finished are the calls ChatCompletionAccumulator.JustFinishedToolCall reported.
		finished []string
		usage    bool   // the usage chunk was accumulated
		err      string // what Stream.Err says; "" for none
	}{
		// Tolerated.
		{name: "text", reply: gatewaytest.Reply{Content: text},
			content: text, finish: "stop", usage: true},
		{name: "CRLF, comments, one-byte writes", reply: gatewaytest.Reply{Content: text,
			Quirks: gatewaytest.Quirks{CRLF: true, Keepalive: true, ChunkSize: 1}},
			content: text, finish: "stop", usage: true},
		{name: "no [DONE], no usage chunk", reply: gatewaytest.Reply{Content: text,
			Quirks: gatewaytest.Quirks{NoDone: true, NoUsageChunk: true}},
			content: text, finish: "stop"},
		{name: "arguments in fragments", reply: gatewaytest.Reply{ToolCalls: paris,
			Quirks: gatewaytest.Quirks{ArgChunkSize: 3}},
			calls: parisCall, finish: "tool_calls", finished: []string{"weather"}, usage: true},
		{name: "blank id and type on later fragments", reply: gatewaytest.Reply{ToolCalls: paris,
			Quirks: gatewaytest.Quirks{BlankIDs: true, ArgChunkSize: 3}},
			calls: parisCall, finish: "tool_calls", finished: []string{"weather"}, usage: true},
		{name: "whole calls in one delta", reply: gatewaytest.Reply{ToolCalls: two,
			Quirks: gatewaytest.Quirks{WholeToolCalls: true}},
			calls: twoCalls, finish: "tool_calls", finished: []string{"weather", "time"}, usage: true},
		{name: "parallel calls", reply: gatewaytest.Reply{ToolCalls: two,
			Quirks: gatewaytest.Quirks{ArgChunkSize: 4}},
			calls: twoCalls, finish: "tool_calls", finished: []string{"weather", "time"}, usage: true},

		// Partly tolerated: the message is right, but JustFinishedToolCall never reports the last
		// call when finish_reason rides on the chunk of its last fragment.
		{name: "finish_reason on the last fragment", reply: gatewaytest.Reply{ToolCalls: two,
			Quirks: gatewaytest.Quirks{ArgChunkSize: 4, FinishOnLastDelta: true}},
			calls: twoCalls, finish: "tool_calls", finished: []string{"weather"}, usage: true},

		// Not tolerated.
		// The placeholder "{}" is concatenated with the real arguments: invalid JSON.
		{name: "placeholder {} before the arguments", reply: gatewaytest.Reply{ToolCalls: paris,
			Quirks: gatewaytest.Quirks{EmptyArgsFirst: true}},
			calls: []call{{"call_a", "weather", `{}{"city":"Paris"}`}}, finish: "tool_calls",
			finished: []string{"weather"}, usage: true},
		// A silent truncation looks like a complete stream: no error, only the missing
		// finish_reason tells.
		{name: "silent truncation", reply: gatewaytest.Reply{Content: text,
			Quirks: gatewaytest.Quirks{TruncateAfter: 2}},
			content: "Hello "},
		// An in-band error ends the stream with an ssestream.StreamError; what came before stays.
		{name: "in-band error", reply: gatewaytest.Reply{Content: text,
			Quirks: gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{After: 2}}},
			content: "Hello ", err: "received error while streaming"},
		// A non-JSON data line ends the stream with a JSON syntax error.
		{name: "junk lines", reply: gatewaytest.Reply{Content: text,
			Quirks: gatewaytest.Quirks{JunkLines: true}},
			err: "invalid character 'p'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.NewServer(gatewaytest.WithReplies(tt.reply))
			defer srv.Close()
			stream := newClient(srv).Chat.Completions.NewStreaming(context.Background(), userAsks("hi"))
			defer stream.Close()
			var acc openai.ChatCompletionAccumulator
			var finished []string
			for stream.Next() {
				if !acc.AddChunk(stream.Current()) {
					t.Fatalf("the accumulator refused chunk %s", stream.Current().RawJSON())
				}
				if tc, ok := acc.JustFinishedToolCall(); ok {
					finished = append(finished, tc.Name)
				}
			}
			if err := stream.Err(); (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			var content, finish string
			var got []call
			if len(acc.Choices) > 0 {
				content, finish = acc.Choices[0].Message.Content, acc.Choices[0].FinishReason
				got = calls(acc.Choices[0].Message.ToolCalls)
			}
			if content != tt.content || finish != tt.finish {
				t.Errorf("content %q, finish %q; want %q, %q", content, finish, tt.content, tt.finish)
			}
			if !slices.Equal(got, tt.calls) {
				t.Errorf("calls = %v, want %v", got, tt.calls)
			}
			if !slices.Equal(finished, tt.finished) {
				t.Errorf("JustFinishedToolCall reported %v, want %v", finished, tt.finished)
			}
			if usage := acc.Usage.TotalTokens > 0; usage != tt.usage {
				t.Errorf("usage accumulated: %v, want %v", usage, tt.usage)
			}
		})
	}
}

// TestStreamErrorEvent checks that openai-go hands over the in-band error event as the fake sent it.
func TestStreamErrorEvent(t *testing.T) {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{Content: "a b",
		Quirks: gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{After: 1, Message: "provider down", Type: "provider_error", Status: 502}}}))
	defer srv.Close()
	stream := newClient(srv).Chat.Completions.NewStreaming(context.Background(), userAsks("hi"))
	defer stream.Close()
	for stream.Next() {
	}
	var se *ssestream.StreamError
	if !errors.As(stream.Err(), &se) {
		t.Fatalf("err = %v, want an *ssestream.StreamError", stream.Err())
	}
	want := `{"error":{"message":"provider down","status":502,"type":"provider_error"}}`
	if got := strings.TrimSpace(string(se.Event.Data)); got != want {
		t.Errorf("event data = %s, want %s", got, want)
	}
}
