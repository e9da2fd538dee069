package infergate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
)

// heapKept returns how many bytes of the heap stay reachable through what keep returns: the live
// heap after a collection with it kept, less the live heap before keep ran. What exists before,
// fixture stays alive until after, so that its going is not counted against the rest. Tests that
// call it do not run in parallel, so that no other test's memory is counted.
func heapKept(fixture any, keep func() any) int64 {
	var before, after runtime.MemStats
	collect()
	runtime.ReadMemStats(&before)
	kept := keep()
	collect()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	runtime.KeepAlive(fixture)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// answeringWith is an HTTP client whose every request gets body, with contentType.
func answeringWith(contentType string, body []byte) infergate.Option {
	return infergate.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {contentType}},
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
	})})
}

// metadata is what a program typically keeps of an answer it has read: its ids and names.
func metadata(c *infergate.ChatCompletion) []string {
	kept := []string{c.ID, c.Object, c.Model, c.SystemFingerprint}
	for _, ch := range c.Choices {
		kept = append(kept, string(ch.FinishReason), string(ch.Message.Role))
		for _, tc := range ch.Message.ToolCalls {
			kept = append(kept, tc.ID, tc.Type, tc.Function.Name)
		}
	}
	return kept
}

// Keeping the ids and names of answers, and nothing else, must not keep the answers' text: 16
// answers of 4 MB each, whose metadata is kept, leave far less than one of them on the heap.
func TestKeptMetadataLetsTheAnswerGo(t *testing.T) {
	const answers, size = 16, 4 << 20
	text := strings.Repeat("All work and no play makes Jack a dull boy.\n", size/44)
	body, err := json.Marshal(map[string]any{"id": "chatcmpl-b1g", "object": "chat.completion", "created": 1,
		"model": "deepseek-r1", "system_fingerprint": "fp_b1g",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
			"role": "assistant", "content": text, "reasoning_content": "ok",
			"tool_calls": []any{map[string]any{"id": "call_b1g", "type": "function",
				"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	client := testClient(t, "http://gateway.invalid", answeringWith("application/json", body))
	ctx := context.Background()
	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("weather?")}}
	kept := heapKept(client, func() any {
		var kept [][]string
		for range answers {
			c, err := client.Chat.Create(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if m := metadata(c); m[0] != "chatcmpl-b1g" || m[8] != "get_weather" {
				t.Fatalf("metadata %q", m)
			}
			kept = append(kept, metadata(c))
		}
		return kept
	})
	if kept > size {
		t.Errorf("the metadata of %d answers of %d MiB keeps %.1f MiB on the heap, want less than one answer's",
			answers, size>>20, float64(kept)/(1<<20))
	}
}

// The same holds for a streamed answer: keeping the ids and names of its tool calls must not keep
// the text that came with them. Each call comes after 4,000 bytes of content.
func TestKeptMetadataLetsTheStreamedTextGo(t *testing.T) {
	const calls = 1024
	var stream bytes.Buffer
	head := `data: {"id":"chatcmpl-b1g","object":"chat.completion.chunk","created":1,"model":"deepseek-r1","choices":[{"index":0,`
	piece := strings.Repeat("x", 1000)
	for i := range calls {
		for range 4 {
			fmt.Fprintf(&stream, "%s\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", head, piece)
		}
		fmt.Fprintf(&stream, `%s"delta":{"tool_calls":[{"index":%d,"id":"call_%04d","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},"finish_reason":null}]}`+"\n\n", head, i, i)
	}
	fmt.Fprintf(&stream, "%s\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n", head)
	client := testClient(t, "http://gateway.invalid", answeringWith("text/event-stream", stream.Bytes()))
	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("weather?")}}
	kept := heapKept(client, func() any {
		s, err := client.Chat.Stream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		m := metadata(s.Completion())
		if len(m) != 6+3*calls || m[6] != "call_0000" {
			t.Fatalf("%d metadata strings, the first call's id %q", len(m), m[6])
		}
		return m
	})
	if kept > 1<<20 {
		t.Errorf("the ids and names of %d streamed calls keep %.1f MiB on the heap, want less than 1 MiB",
			calls, float64(kept)/(1<<20))
	}
}

// collect runs the collector twice: what a sync.Pool holds (encoding/json's buffers) goes only on
// the second.
func collect() {
	runtime.GC()
	runtime.GC()
}
