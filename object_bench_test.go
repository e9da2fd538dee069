package infergate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
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
			tr.add(opening)
			yields := 0
			for _, c := range chunks {
				if tr.add(c) {
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
