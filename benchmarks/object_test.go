package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/infergate/infergate-go"
	"github.com/sashabaranov/go-openai"
)

// Typed answers are infergate's alone: BenchmarkObject compares them with the plain call that
// carries them, and GenerateObject with what a go-openai user writes for the same job, on the same
// reply. Its sub-benchmarks are named after the calls, not contenders; benchtable prints their
// ratios in a table of their own.

// objectRecord and objectAnswer are the value asked for: a long text and a few hundred records
// with strings, numbers, tags and optional notes, about 50 KB of JSON.
type objectRecord struct {
	Label string   `json:"label"`
	Score float64  `json:"score"`
	Tags  []string `json:"tags,omitempty"`
	Note  *string  `json:"note,omitempty"`
}

type objectAnswer struct {
	Title string            `json:"title"`
	Count int               `json:"count"`
	Level string            `json:"level" enum:"low,medium,high"`
	When  time.Time         `json:"when"`
	Items []objectRecord    `json:"items"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

const (
	objectName      = "objectAnswer"
	objectSize      = 50_000
	objectFragments = 4000
)

func objectJSON() (objectAnswer, []byte) {
	v := objectAnswer{Title: strings.Repeat("A long title with \"quotes\" and ünïcode; ", 40), Count: 42, Level: "high",
		When: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC), Attrs: map[string]string{"source": "benchmark"}}
	for i := 0; ; i++ {
		raw, _ := json.Marshal(v)
		if len(raw) >= objectSize {
			return v, raw
		}
		note := fmt.Sprintf("note %d: see \\ the \"appendix\"", i)
		v.Items = append(v.Items, objectRecord{Label: fmt.Sprintf("record number %d of the set", i), Score: float64(i) / 3,
			Tags: []string{"alpha", "beta"}, Note: &note})
	}
}

// objectStreamBody streams one call whose arguments arrive in n fragments, cut between characters.
func objectStreamBody(args []byte, n int) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "data: %s{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_7Xk2\",\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n", chunkHead, objectName)
	lo := 0
	for i := range n {
		hi := (i + 1) * len(args) / n
		for hi < len(args) && !utf8.RuneStart(args[hi]) {
			hi++
		}
		hi = max(lo, hi)
		quoted, _ := json.Marshal(string(args[lo:hi]))
		lo = hi
		fmt.Fprintf(&buf, "data: %s{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%s}}]},\"finish_reason\":null}]}\n\n", chunkHead, quoted)
	}
	fmt.Fprintf(&buf, "data: %s{},\"finish_reason\":\"tool_calls\"}]}\n\n", chunkHead)
	buf.WriteString("data: [DONE]\n\n")
	return buf.Bytes()
}

// objectCompletionBody answers with the whole call at once.
func objectCompletionBody(args []byte) []byte {
	body, _ := json.Marshal(map[string]any{"id": "chatcmpl-8f3a9c2b", "object": "chat.completion", "created": 1731000000, "model": chatModel,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{"role": "assistant",
			"tool_calls": []any{map[string]any{"id": "call_7Xk2", "type": "function", "function": map[string]any{"name": objectName, "arguments": string(args)}}}}}},
		"usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 12000, "total_tokens": 12012}})
	return body
}

func objectClient(tb testing.TB, body []byte, contentType string) *infergate.Client {
	client, err := infergate.NewClient(infergate.WithAPIKey("sk-bench"), infergate.WithBaseURL(fakeBase),
		infergate.WithHTTPClient(&http.Client{Transport: newReplay(body, contentType)}), infergate.WithMaxRetries(0))
	if err != nil {
		tb.Fatal(err)
	}
	return client
}

// BenchmarkObject reads a 50 KB object, one call's arguments, on the same reply: streamed in 4,000
// fragments with Chat.Stream to the end (Stream) and with StreamObject, ranging over its partial
// values (StreamObject) or waiting for the value (StreamObjectWait); whole with GenerateObject
// (GenerateObject), and with go-openai's CreateChatCompletion then json.Unmarshal of the
// arguments into T (GoOpenAIUnmarshal: no check at all), and the same with jsonschema-go
// validating the value against T's schema, resolved once (GoOpenAIValidate: what a careful user
// writes). The plain calls send the tool and tool_choice GenerateObject sends, so that only what
// typed answers add differs. Each reports its CPU time per call (cpu-ns/op) beside the wall time:
// on a shared machine it moves less.
func BenchmarkObject(b *testing.B) {
	want, raw := objectJSON()
	schema, err := infergate.SchemaFor[objectAnswer]()
	if err != nil {
		b.Fatal(err)
	}
	var checked jsonschema.Schema
	if err := json.Unmarshal(schema, &checked); err != nil {
		b.Fatal(err)
	}
	resolved, err := checked.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	req := infergate.ChatRequest{Model: chatModel, Messages: []infergate.Message{infergate.UserMessage(chatPrompt)}}
	plain := req
	plain.Tools = []infergate.Tool{{Type: "function", Function: infergate.FunctionDefinition{Name: objectName, Parameters: schema}}}
	plain.ToolChoice = infergate.ToolChoiceFunction(objectName)
	spec := infergate.ObjectSpec{Mode: infergate.ObjectModeTool}
	streaming := objectClient(b, objectStreamBody(raw, objectFragments), "text/event-stream")
	whole := objectClient(b, objectCompletionBody(raw), "application/json")
	goOpenAIConfig := openai.DefaultConfig("sk-bench")
	goOpenAIConfig.BaseURL = fakeBase
	goOpenAIConfig.HTTPClient = &http.Client{Transport: newReplay(objectCompletionBody(raw), "application/json")}
	goOpenAI := openai.NewClientWithConfig(goOpenAIConfig)
	goOpenAIReq := goOpenAIObjectRequest(objectName, schema)
	ctx := context.Background()
	run := func(name string, call func() (int, error)) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			start := processCPU(b)
			for range b.N {
				n, err := call()
				if err != nil {
					b.Fatal(err)
				}
				if n != len(raw) && n != len(want.Items) {
					b.Fatalf("read %d, want %d bytes or %d items", n, len(raw), len(want.Items))
				}
			}
			b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
	run("Stream", func() (int, error) {
		stream, err := streaming.Chat.Stream(ctx, plain)
		if err != nil {
			return 0, err
		}
		defer stream.Close()
		for stream.Next() {
		}
		if err := stream.Err(); err != nil {
			return 0, err
		}
		return len(stream.Completion().ToolCalls()[0].Function.Arguments), nil
	})
	run("StreamObject", func() (int, error) {
		var last objectAnswer
		for partial, err := range infergate.StreamObject[objectAnswer](ctx, streaming.Chat, req, spec).Partials() {
			if err != nil {
				return 0, err
			}
			last = partial
		}
		return len(last.Items), nil
	})
	run("StreamObjectWait", func() (int, error) {
		obj, err := infergate.StreamObject[objectAnswer](ctx, streaming.Chat, req, spec).Wait()
		if err != nil {
			return 0, err
		}
		return len(obj.Value.Items), nil
	})
	run("GenerateObject", func() (int, error) {
		obj, err := infergate.GenerateObject[objectAnswer](ctx, whole.Chat, req, spec)
		if err != nil {
			return 0, err
		}
		return len(obj.Value.Items), nil
	})
	for _, check := range []struct {
		name   string
		schema *jsonschema.Resolved
	}{{"GoOpenAIUnmarshal", nil}, {"GoOpenAIValidate", resolved}} {
		got, err := goOpenAIObject[objectAnswer](ctx, goOpenAI, goOpenAIReq, check.schema)
		if err != nil {
			b.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			b.Fatalf("%s decoded another value (-want +got):\n%s", check.name, diff)
		}
		run(check.name, func() (int, error) {
			v, err := goOpenAIObject[objectAnswer](ctx, goOpenAI, goOpenAIReq, check.schema)
			return len(v.Items), err
		})
	}
}

// processCPU is the CPU time the process has used so far, the garbage collector's included.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkObjectMemory does only what GenerateObject's result keeps in memory for the answer of
// BenchmarkObject, with no parsing at all: the body (ChatCompletion.RawJSON), the unescaped
// arguments (FunctionCall.Arguments, which T's strings are cut from), Object.Raw (a copy the caller
// may change) and T's own blocks (the records, their tags and notes). Beside
// BenchmarkObject/GoOpenAIUnmarshal it is the least GenerateObject can cost while it keeps them.
func BenchmarkObjectMemory(b *testing.B) {
	want, raw := objectJSON()
	body := objectCompletionBody(raw)
	args := string(raw)
	n := len(want.Items)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU(b)
	for range b.N {
		kept := bytes.NewBuffer(make([]byte, 0, len(body)+bytes.MinRead))
		kept.Write(body)
		arena := make([]byte, len(body))
		copy(arena, args)
		objectSink.body, objectSink.arena, objectSink.raw = kept.Bytes(), arena, []byte(args)
		items, tags, notes := make([]objectRecord, n), make([]string, 2*n), make([]string, n)
		for i := range items {
			items[i].Tags, items[i].Note = tags[2*i:2*i+2:2*i+2], &notes[i]
		}
		objectSink.items = items
	}
	b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
}

// objectSink keeps BenchmarkObjectMemory's allocations from being optimized away.
var objectSink struct {
	body, arena, raw []byte
	items            []objectRecord
}
