package infergate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A stream whose chunks no one keeps reuses one set of lists: each chunk must still read as if
// fresh, with nothing left of the chunk before it.
func TestTransientChunksReuseTheirLists(t *testing.T) {
	t.Parallel()
	first := `{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hi","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]},"finish_reason":"tool_calls"}]}`
	second := `{"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}`
	for _, transient := range []bool{false, true} {
		var m streamMemory
		if transient {
			m.setTransient()
		}
		var a, b ChatCompletionChunk
		if !m.decode([]byte(first), &a) {
			t.Fatal("first chunk declined")
		}
		kept := a.Choices
		b = a
		if !m.decode([]byte(second), &b) {
			t.Fatal("second chunk declined")
		}
		want := []ChunkChoice{{Delta: Delta{ToolCalls: []ToolCallDelta{{Function: FunctionCallDelta{Arguments: ":1}"}}}}}}
		if diff := cmp.Diff(want, b.Choices); diff != "" {
			t.Errorf("transient %v: second chunk's choices (-want +got):\n%s", transient, diff)
		}
		if shared := &kept[0] == &b.Choices[0]; shared != transient {
			t.Errorf("transient %v: the chunks share their choices: %v", transient, shared)
		}
		if !transient && (kept[0].FinishReason != "tool_calls" || kept[0].Delta.ToolCalls[0].ID != "call_1") {
			t.Errorf("a kept chunk changed: %+v", kept[0])
		}
		calls := b.Choices[0].Delta.ToolCalls
		if cap(calls) != len(calls) || cap(b.Choices) != len(b.Choices) {
			t.Errorf("transient %v: lists not capped: cap %d and %d", transient, cap(calls), cap(b.Choices))
		}
		// Several choices with calls in one chunk: each its own list, however many calls each has.
		for n := 1; n <= 5; n++ {
			var parts []string
			var want []ChunkChoice
			for i := range 3 {
				var calls []string
				var wantCalls []ToolCallDelta
				for j := range n + i {
					args := fmt.Sprintf("c%d-%d", i, j)
					calls = append(calls, fmt.Sprintf(`{"index":%d,"function":{"arguments":%q}}`, j, args))
					wantCalls = append(wantCalls, ToolCallDelta{Index: j, Function: FunctionCallDelta{Arguments: args}})
				}
				parts = append(parts, fmt.Sprintf(`{"index":%d,"delta":{"tool_calls":[%s]}}`, i, strings.Join(calls, ",")))
				want = append(want, ChunkChoice{Index: i, Delta: Delta{ToolCalls: wantCalls}})
			}
			if !m.decode([]byte(`{"id":"c1","model":"m","choices":[`+strings.Join(parts, ",")+`]}`), &b) {
				t.Fatal("chunk declined")
			}
			if diff := cmp.Diff(want, b.Choices); diff != "" {
				t.Fatalf("transient %v, %d calls: choices (-want +got):\n%s", transient, n, diff)
			}
		}
	}
}

// The resets name each field; one added to the types must be added to them too.
func TestResetsZeroEveryField(t *testing.T) {
	t.Parallel()
	var choice ChunkChoice
	fillEveryField(reflect.ValueOf(&choice).Elem())
	resetChoice(&choice)
	if !reflect.ValueOf(choice).IsZero() {
		t.Errorf("resetChoice left %+v", choice)
	}
	var call ToolCallDelta
	fillEveryField(reflect.ValueOf(&call).Elem())
	resetCall(&call)
	if !reflect.ValueOf(call).IsZero() {
		t.Errorf("resetCall left %+v", call)
	}
}

// fillEveryField sets every field of v, through nested structs, to something not zero.
func fillEveryField(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fillEveryField(v.Field(i))
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	default:
		panic("fillEveryField: add the kind " + v.Kind().String())
	}
}
