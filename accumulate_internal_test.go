package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"unicode/utf8"
)

// splitRunes cuts s at random rune boundaries, as a provider's tokenizer would.
func splitRunes(s string, rng *rand.Rand) []string {
	var parts []string
	for len(s) > 0 {
		n := 1 + rng.IntN(min(len(s), 12))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return parts
}

// toolCallStream renders the events of calls streamed in fragments, with the quirks in shape.
func toolCallStream(args string, rng *rand.Rand, shape uint8) string {
	calls := 1
	if shape&shapeTwoCalls != 0 {
		calls = 2
	}
	chunk := func(delta map[string]any, finish any) string {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		return string(b)
	}
	var events []string
	for c := range calls {
		id, name := fmt.Sprintf("call_%d", c), fmt.Sprintf("fn_%d", c)
		fragment := func(fn map[string]any, extra map[string]any) map[string]any {
			call := map[string]any{"function": fn}
			if shape&shapeNoIndex == 0 {
				call["index"] = c
			}
			for k, v := range extra {
				call[k] = v
			}
			return map[string]any{"tool_calls": []any{call}}
		}
		events = append(events, chunk(fragment(map[string]any{"name": name, "arguments": ""}, map[string]any{"id": id, "type": "function"}), nil))
		pieces := splitRunes(args, rng)
		if shape&shapePlaceholder != 0 {
			pieces = append([]string{"{}"}, pieces...)
		}
		for _, p := range pieces {
			extra := map[string]any{}
			fn := map[string]any{"arguments": p}
			switch {
			case shape&shapeRepeatIDs != 0:
				extra["id"], extra["type"], fn["name"] = id, "function", name
			case shape&shapeEmptyIDs != 0:
				extra["id"], extra["type"] = "", ""
			}
			events = append(events, chunk(fragment(fn, extra), nil))
		}
	}
	if shape&shapeFinishInline != 0 {
		var last map[string]any
		_ = json.Unmarshal([]byte(events[len(events)-1]), &last)
		last["choices"].([]any)[0].(map[string]any)["finish_reason"] = "tool_calls"
		b, _ := json.Marshal(last)
		events[len(events)-1] = string(b)
	} else {
		events = append(events, chunk(map[string]any{}, "tool_calls"))
	}
	if shape&shapeNoDone == 0 {
		events = append(events, "[DONE]")
	}
	return sseEvents(events...)
}

// streamFromMemory runs a ChatStream whose response body is body, served in random pieces.
func streamFromMemory(t *testing.T, body string, rng *rand.Rand) *ChatStream {
	t.Helper()
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: &chunkedBody{data: []byte(body), rng: rng}, Request: r}, nil
	})
	client, err := NewClient(WithAPIKey("k"), WithBaseURL("https://gateway.test"), WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := client.Chat.Stream(context.Background(), ChatRequest{Messages: []Message{UserMessage("go")}})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return stream
}

func compact(s string) (string, error) {
	var b bytes.Buffer
	err := json.Compact(&b, []byte(s))
	return b.String(), err
}

// FuzzToolCallArguments checks that valid argument JSON, streamed in any fragments with the quirks
// providers have (placeholder "{}", no index, empty or repeated ids), always comes back as the same
// JSON, both from Completion and from concatenating the deltas that Current returns.
func FuzzToolCallArguments(f *testing.F) {
	for i, args := range []string{
		`{"city":"Paris"}`, `{}`, `{"a":[1,2,{"b":"é ü 😀"}],"c":null}`, `{"s":"quote \" backslash \\ nl \n"}`,
		` { "x" : 1 } `, `{} `, `{"html":"<b>&amp;</b>"}`, `{"n":-1.5e+10,"t":true,"f":false}`,
	} {
		f.Add(args, uint64(i), uint8(i*37))
	}
	f.Fuzz(func(t *testing.T, args string, seed uint64, shape uint8) {
		if !utf8.ValidString(args) || !json.Valid([]byte(args)) {
			return
		}
		want, _ := compact(args)
		rng := rand.New(rand.NewPCG(seed, uint64(shape)))
		stream := streamFromMemory(t, toolCallStream(args, rng, shape), rng)
		deltas := map[int]string{}
		for stream.Next() {
			for _, choice := range stream.Current().Choices {
				for _, d := range choice.Delta.ToolCalls {
					deltas[d.Index] += d.Function.Arguments
				}
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("stream failed: %v", err)
		}
		calls := stream.Completion().Choices[0].Message.ToolCalls
		if wantCalls := 1 + int(shape&shapeTwoCalls)/shapeTwoCalls; len(calls) != wantCalls {
			t.Fatalf("got %d tool calls, want %d: %+v", len(calls), wantCalls, calls)
		}
		for i, call := range calls {
			if call.ID != fmt.Sprintf("call_%d", i) || call.Function.Name != fmt.Sprintf("fn_%d", i) || call.Type != "function" {
				t.Errorf("call %d: id %q name %q type %q", i, call.ID, call.Function.Name, call.Type)
			}
			got, err := compact(call.Function.Arguments)
			if err != nil || got != want {
				t.Errorf("call %d: arguments %q, want %q (compact %v)", i, call.Function.Arguments, args, err)
			}
			if deltas[i] != call.Function.Arguments {
				t.Errorf("call %d: deltas concatenate to %q, Completion has %q", i, deltas[i], call.Function.Arguments)
			}
		}
	})
}
