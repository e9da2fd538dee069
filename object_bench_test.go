package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// benchObject is a 50 KB answer: a long text, a few hundred records with strings, numbers, tags
// and optional notes.
func benchObject(tb testing.TB) (propValue, []byte) {
	v := propValue{Title: strings.Repeat("A long title with \"quotes\" and ünïcode; ", 40), Count: 42, Level: "high",
		When: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC), Attrs: map[string]string{"source": "benchmark"}}
	for i := 0; len(mustJSON(tb, v)) < 50_000; i++ {
		note := fmt.Sprintf("note %d: see \\ the \"appendix\"", i)
		v.Items = append(v.Items, propItem{Label: fmt.Sprintf("record number %d of the set", i), Score: float64(i) / 3,
			Tags: []string{"alpha", "beta"}, Note: &note})
	}
	return v, mustJSON(tb, v)
}

func mustJSON(tb testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkPartialObject compares following a 50 KB object streamed in 4,000 tool-call fragments,
// with a partial value after each fragment that adds something, to decoding the final JSON once.
func BenchmarkPartialObject(b *testing.B) {
	_, raw := benchObject(b)
	const fragments = 4000
	pieces := make([]string, fragments)
	for i := range pieces {
		pieces[i] = string(raw[i*len(raw)/fragments : (i+1)*len(raw)/fragments])
	}
	chunks := make([]ChatCompletionChunk, len(pieces))
	for i, p := range pieces {
		chunks[i] = ChatCompletionChunk{Choices: []ChunkChoice{{Delta: Delta{ToolCalls: []ToolCallDelta{{Function: FunctionCallDelta{Arguments: p}}}}}}}
	}
	opening := ChatCompletionChunk{Choices: []ChunkChoice{{Delta: Delta{ToolCalls: []ToolCallDelta{{ID: "c", Function: FunctionCallDelta{Name: "propValue"}}}}}}}
	run := &objectRun{spec: ObjectSpec{Name: "propValue"}, t: reflect.TypeFor[propValue]()}
	b.Run("decode-final-once", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			var v propValue
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("partials-%d-fragments", len(pieces)), func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		var shown propValue
		for b.Loop() {
			var partial propValue
			tr := newPartialTracker(reflect.ValueOf(&partial).Elem(), ObjectModeTool, run)
			tr.add(&opening)
			yields := 0
			for i := range chunks {
				if tr.add(&chunks[i]) {
					shown = partial // what handing the partial to the caller costs
					yields++
				}
			}
			// Records show once complete: a few hundred partials, the last one whole.
			if yields < 100 || shown.Count != 42 || shown.Attrs == nil {
				b.Fatalf("%d partials, the last %+v", yields, shown)
			}
		}
	})
}

// objectReplay answers every request with the same body, as a server that has it ready would.
type objectReplay struct {
	body        []byte
	contentType string
}

func (r objectReplay) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {r.contentType}},
		Body: io.NopCloser(bytes.NewReader(r.body)), ContentLength: int64(len(r.body)), Request: req}, nil
}

// objectCallStream is the event stream of one call of name whose arguments arrive in n fragments.
func objectCallStream(name string, args []byte, n int) []byte {
	var buf bytes.Buffer
	head := `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","choices":[{"index":0,"delta":`
	fmt.Fprintf(&buf, "data: %s{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_7Xk2\",\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n", head, name)
	lo := 0
	for i := range n {
		hi := (i + 1) * len(args) / n
		for hi < len(args) && !utf8.RuneStart(args[hi]) {
			hi++ // a fragment is text: it never splits a character
		}
		quoted, _ := json.Marshal(string(args[lo:max(lo, hi)]))
		lo = max(lo, hi)
		fmt.Fprintf(&buf, "data: %s{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%s}}]},\"finish_reason\":null}]}\n\n", head, quoted)
	}
	fmt.Fprintf(&buf, "data: %s{},\"finish_reason\":\"tool_calls\"}]}\n\n", head)
	buf.WriteString("data: [DONE]\n\n")
	return buf.Bytes()
}

// objectCallCompletion is a completion whose one call of name has args as its arguments.
func objectCallCompletion(tb testing.TB, name string, args []byte) []byte {
	return mustJSON(tb, map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "llama-3.3-70b",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{"role": "assistant",
			"tool_calls": []any{map[string]any{"id": "call_7Xk2", "type": "function", "function": map[string]any{"name": name, "arguments": string(args)}}}}}},
		"usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 12000, "total_tokens": 12012}})
}

func replayClient(tb testing.TB, body []byte, contentType string) *Client {
	c, err := NewClient(WithAPIKey("sk-bench"), WithBaseURL("http://gw.test"), WithMaxRetries(0),
		WithHTTPClient(&http.Client{Transport: objectReplay{body: body, contentType: contentType}}))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// reportCPU reports the CPU time per operation since start, which a loaded machine hardly moves,
// as cpu-ns/op.
// cpuTime is the CPU time the process has used: unlike wall time, it hardly moves when other
// programs load the machine.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkObjectAnswer measures what a typed answer adds to the call that carries it, on the same
// server reply: the 50 KB benchObject as one call's arguments, streamed in 4,000 fragments (read
// to the end with Chat.Stream, then with StreamObject, ranging over its partials or waiting for the
// value) and whole (Chat.Create, then
// GenerateObject). Each also reports its CPU time (cpu-ns/op), steadier than wall time on a shared
// machine. The plain calls send the same tool and tool_choice GenerateObject sends.
func BenchmarkObjectAnswer(b *testing.B) {
	want, raw := benchObject(b)
	const name = "propValue"
	ts := schemaOf(reflect.TypeFor[propValue]())
	if err := ts.forObjects(); err != nil {
		b.Fatal(err)
	}
	plain := ChatRequest{Model: "llama-3.3-70b", Messages: []Message{UserMessage("the records, please")},
		Tools: []Tool{functionTool(name, "", ts.call.sent)}, ToolChoice: ToolChoiceFunction(name)}
	req := ChatRequest{Model: plain.Model, Messages: plain.Messages}
	ctx := context.Background()
	streaming := replayClient(b, objectCallStream(name, raw, 4000), "text/event-stream")
	whole := replayClient(b, objectCallCompletion(b, name, raw), "application/json")
	b.Run("Stream", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		defer reportCPU(b, cpuTime(b))
		for b.Loop() {
			stream, err := streaming.Chat.Stream(ctx, plain)
			if err != nil {
				b.Fatal(err)
			}
			for stream.Next() {
			}
			if err := stream.Err(); err != nil || len(stream.Completion().ToolCalls()[0].Function.Arguments) != len(raw) {
				b.Fatal(err)
			}
			stream.Close()
		}
	})
	b.Run("StreamObject", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		defer reportCPU(b, cpuTime(b))
		for b.Loop() {
			var last propValue
			for partial, err := range StreamObject[propValue](ctx, streaming.Chat, req, ObjectSpec{Mode: ObjectModeTool}).Partials() {
				if err != nil {
					b.Fatal(err)
				}
				last = partial
			}
			if len(last.Items) != len(want.Items) {
				b.Fatalf("the last partial has %d items, want %d", len(last.Items), len(want.Items))
			}
		}
	})
	b.Run("StreamObjectWait", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		defer reportCPU(b, cpuTime(b))
		for b.Loop() {
			obj, err := StreamObject[propValue](ctx, streaming.Chat, req, ObjectSpec{Mode: ObjectModeTool}).Wait()
			if err != nil || len(obj.Value.Items) != len(want.Items) {
				b.Fatal(err)
			}
		}
	})
	b.Run("Create", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		defer reportCPU(b, cpuTime(b))
		for b.Loop() {
			c, err := whole.Chat.Create(ctx, plain)
			if err != nil || len(c.ToolCalls()[0].Function.Arguments) != len(raw) {
				b.Fatal(err)
			}
		}
	})
	b.Run("GenerateObject", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		defer reportCPU(b, cpuTime(b))
		for b.Loop() {
			obj, err := GenerateObject[propValue](ctx, whole.Chat, req, ObjectSpec{Mode: ObjectModeTool})
			if err != nil || len(obj.Value.Items) != len(want.Items) {
				b.Fatal(err)
			}
		}
	})
}
