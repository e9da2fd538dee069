package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// scalarCase is an answer's text and the value it holds.
type scalarCase[T any] struct {
	text string
	want T
}

// generateScalar asks for a T in the text modes, answering with each case's text, and checks the
// value comes out in one attempt.
func generateScalar[T any](t *testing.T, cases []scalarCase[T]) {
	t.Helper()
	for _, mode := range []infergate.ObjectMode{infergate.ObjectModePrompt, infergate.ObjectModeJSONSchema} {
		for _, c := range cases {
			gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: c.text}))
			obj, err := infergate.GenerateObject[T](context.Background(), gw.Client().Chat, recipeRequest(),
				infergate.ObjectSpec{Mode: mode, MaxAttempts: 1})
			if err != nil {
				t.Errorf("%v, %q: %v", mode, c.text, err)
				continue
			}
			if !cmp.Equal(obj.Value, c.want) || obj.Attempts != 1 {
				t.Errorf("%v, %q: %v in %d attempts, want %v", mode, c.text, obj.Value, obj.Attempts, c.want)
			}
		}
	}
}

// A scalar answer is found in the text: alone, leading the text, fenced, or the only one in prose.
func TestGenerateObjectScalarsFromText(t *testing.T) {
	t.Parallel()
	generateScalar(t, []scalarCase[string]{
		{`"Paris"`, "Paris"},
		{"  \"Paris\"\n", "Paris"},
		{`<think>France? "Lyon" {no}</think>"Paris"`, "Paris"},
		{`"Paris" is the capital of France.`, "Paris"},
		{"Here it is:\n```json\n\"Paris\"\n```", "Paris"},
		{`The capital is "Paris".`, "Paris"},
		{`"{not an object}"`, "{not an object}"},
	})
	generateScalar(t, []scalarCase[int]{
		{`42`, 42},
		{"42\n", 42},
		{`-7`, -7},
		{"```\n42\n```", 42},
		{`The answer is 42.`, 42},
		{`<think>6 times 7, not 41</think>The answer is 42.`, 42},
	})
	generateScalar(t, []scalarCase[bool]{
		{`true`, true},
		{`false`, false},
		{"```json\ntrue\n```", true},
	})
	generateScalar(t, []scalarCase[float64]{
		{`3.25`, 3.25},
		{`-1.5e3`, -1500},
		{`It weighs 3.25 kg.`, 3.25},
	})
}

// Prose that holds several values, or none of the kind asked for, is refused (and repaired), not
// guessed at.
func TestGenerateObjectScalarRefusesAmbiguousProse(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Between 41 and 43.",          // two numbers
		"Forty-two, I think.",         // no number
		"Version v2 of item-3 is out", // numbers within words are not values
		`"forty-two"`,                 // a string where a number is asked for
	} {
		gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: text}, gatewaytest.Reply{Content: "42"}))
		obj, err := infergate.GenerateObject[int](context.Background(), gw.Client().Chat, recipeRequest(),
			infergate.ObjectSpec{Mode: infergate.ObjectModePrompt})
		if err != nil || obj.Value != 42 || obj.Attempts != 2 {
			t.Errorf("%q: %+v, %v; want 42 after a repair", text, obj, err)
		}
	}
	// true in prose is a word, not the value: it counts only at the start of the text or fenced.
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "It is not true."}, gatewaytest.Reply{Content: "false"}))
	obj, err := infergate.GenerateObject[bool](context.Background(), gw.Client().Chat, recipeRequest(),
		infergate.ObjectSpec{Mode: infergate.ObjectModePrompt})
	if err != nil || obj.Value || obj.Attempts != 2 {
		t.Errorf("%+v, %v; want false after a repair", obj, err)
	}
}

// A call's arguments are an object: a value that is not one travels in an envelope, {"value": ...},
// in the tool modes, so that scalars and lists work through today's gateway.
func TestGenerateObjectScalarInToolModes(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "int", Arguments: `{"value":42}`}}},
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "bad", Name: "int", Arguments: `{"value":"lots"}`}}},
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "int", Arguments: `{"value":7}`}}},
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: `{"value":[` + pancakesJSON + `]}`}}},
	))
	chat := gw.Client().Chat
	obj, err := infergate.GenerateObject[int](context.Background(), chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil || obj.Value != 42 || string(obj.Raw) != "42" || obj.Mode != infergate.ObjectModeTool {
		t.Fatalf("%+v, %v", obj, err)
	}
	fn := gw.Requests()[0].JSON["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	var want any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"],"additionalProperties":false}`), &want)
	if diff := cmp.Diff(want, fn["parameters"]); diff != "" || fn["strict"] != true {
		t.Fatalf("strict %v, parameters (-want +got):\n%s", fn["strict"], diff)
	}
	obj, err = infergate.GenerateObject[int](context.Background(), chat, recipeRequest(), infergate.ObjectSpec{Mode: infergate.ObjectModeTool})
	if err != nil || obj.Value != 7 || obj.Attempts != 2 {
		t.Fatalf("%+v, %v", obj, err)
	}
	turns := gw.Requests()[2].Turns()
	if got := turns[len(turns)-1].Content; got != `error: the arguments are not valid: "value" must be an integer, not a string. Call int again with corrected arguments.` {
		t.Fatalf("repair %q", got)
	}
	list, err := infergate.GenerateObject[[]Recipe](context.Background(), chat, recipeRequest(), infergate.ObjectSpec{Name: "Recipe"})
	if err != nil || len(list.Value) != 1 || !cmp.Equal(list.Value[0], pancakes) {
		t.Fatalf("%+v, %v", list, err)
	}
}

// With nothing scripted, the fake answers the envelope from its schema: a scalar comes out.
func TestGenerateObjectScalarOffline(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	s, err := infergate.GenerateObject[string](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil || s.Value == "" {
		t.Fatalf("%+v, %v", s, err)
	}
	n, err := infergate.GenerateObject[uint8](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil || n.Attempts != 1 {
		t.Fatalf("%+v, %v", n, err)
	}
}

// Partials of a scalar never contradict the value: a string grows as it arrives, a number shows
// once complete, a value found past prose shows at the end.
func TestStreamObjectScalar(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	stream := func(spec infergate.ObjectSpec, reply gatewaytest.Reply) ([]string, *infergate.Object[string]) {
		gw.Enqueue(reply)
		st := infergate.StreamObject[string](context.Background(), gw.Client().Chat, recipeRequest(), spec)
		var partials []string
		for p, err := range st.Partials() {
			if err != nil {
				t.Fatal(err)
			}
			partials = append(partials, p)
		}
		obj, err := st.Wait()
		if err != nil {
			t.Fatal(err)
		}
		return partials, obj
	}
	text := infergate.ObjectSpec{Mode: infergate.ObjectModePrompt}
	for _, reply := range []gatewaytest.Reply{
		{Chunks: []string{`"Pa`, `ris is`, ` lovely"`, ` (the capital)`}},
		{Chunks: []string{"The capital", " is \"Par", "is is lovely\"."}},
		{ToolCalls: []gatewaytest.ToolCall{{Name: "string", Arguments: `{"value":"Paris is lovely"}`}}, Quirks: gatewaytest.Quirks{ArgChunkSize: 4}},
	} {
		spec := text
		if reply.ToolCalls != nil {
			spec = infergate.ObjectSpec{Mode: infergate.ObjectModeTool}
		}
		partials, obj := stream(spec, reply)
		if obj.Value != "Paris is lovely" || len(partials) == 0 || partials[len(partials)-1] != obj.Value {
			t.Fatalf("%+v: value %q, partials %q", reply, obj.Value, partials)
		}
		for _, p := range partials {
			if !strings.HasPrefix(obj.Value, p) {
				t.Fatalf("partial %q contradicts %q", p, obj.Value)
			}
		}
	}
	gw.Enqueue(gatewaytest.Reply{Chunks: []string{"4", "2"}})
	st := infergate.StreamObject[int](context.Background(), gw.Client().Chat, recipeRequest(), text)
	var partials []int
	for p, err := range st.Partials() {
		if err != nil {
			t.Fatal(err)
		}
		partials = append(partials, p)
	}
	if obj, err := st.Wait(); err != nil || obj.Value != 42 || !cmp.Equal(partials, []int{42}) {
		t.Fatalf("%+v, %v, partials %v", obj, err, partials)
	}
}

// An answer that is no value of the kind asked for says so.
func TestGenerateObjectScalarErrorSaysWhy(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "Between 41 and 43."}))
	_, err := infergate.GenerateObject[int](context.Background(), gw.Client().Chat, recipeRequest(),
		infergate.ObjectSpec{Mode: infergate.ObjectModePrompt, MaxAttempts: 1})
	if !errors.Is(err, infergate.ErrNoObject) || !strings.Contains(err.Error(), "41") || !strings.Contains(err.Error(), "43") {
		t.Fatalf("error %v", err)
	}
}

type bill struct {
	Total float64 `json:"total"`
	Lines []struct {
		Item string `json:"item"`
		Qty  int    `json:"qty" jsonschema:"how many"`
	} `json:"lines"`
}

// The repair turn tells the model what is wrong in plain words, as a tool's feedback does, not in
// the validator's words.
func TestObjectRepairIsPlainWords(t *testing.T) {
	t.Parallel()
	good := `{"total":12.5,"lines":[{"item":"tea","qty":2}]}`
	for _, tt := range []struct {
		mode      infergate.ObjectMode
		bad, want string
	}{
		{infergate.ObjectModePrompt, `{"total":"lots","lines":[]}`,
			`That answer is not usable: "total" must be a number, not a string. Answer again with only the corrected JSON value.`},
		{infergate.ObjectModeJSONSchema, `{"total":1,"lines":[{"item":"tea","qty":1.5}]}`,
			`That answer is not usable: "lines[0].qty" must be an integer, not a number. Answer again with only the corrected JSON value.`},
		{infergate.ObjectModeTool, `{"total":1,"lines":[{"item":"tea"}]}`,
			`error: the arguments are not valid: "lines[0].qty" is required. Call bill again with corrected arguments.`},
		{infergate.ObjectModeTool, `[]`,
			`error: the arguments are not valid: the arguments must be an object, not an array. Call bill again with corrected arguments.`},
	} {
		first, second := gatewaytest.Reply{Content: tt.bad}, gatewaytest.Reply{Content: good}
		if tt.mode == infergate.ObjectModeTool {
			first = gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "bill", Arguments: tt.bad}}}
			second = gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "bill", Arguments: good}}}
		}
		gw := gatewaytest.New(t, gatewaytest.WithReplies(first, second))
		obj, err := infergate.GenerateObject[bill](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{Mode: tt.mode})
		if err != nil || obj.Attempts != 2 || obj.Value.Total != 12.5 {
			t.Fatalf("%v: %+v, %v", tt.mode, obj, err)
		}
		turns := gw.Requests()[1].Turns()
		if got := turns[len(turns)-1].Content; got != tt.want {
			t.Errorf("%v: the model read\n\t%s\nwant\n\t%s", tt.mode, got, tt.want)
		}
	}
	// The error for programs says the same, and still reaches the validator's own.
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: `{"total":"lots","lines":[]}`}))
	_, err := infergate.GenerateObject[bill](context.Background(), gw.Client().Chat, recipeRequest(),
		infergate.ObjectSpec{Mode: infergate.ObjectModePrompt, MaxAttempts: 1})
	var oe *infergate.ObjectError
	if !errors.As(err, &oe) || oe.Err.Error() != `"total" must be a number, not a string.` || errors.Unwrap(oe.Err) == nil ||
		!strings.Contains(errors.Unwrap(oe.Err).Error(), "validating") {
		t.Fatalf("error %v", err)
	}
}

// A scripted Reply.Object of a scalar or a list answers in every mode: the fake wraps it in the
// envelope a forced call carries it in.
func TestScriptedObjectOfAScalar(t *testing.T) {
	t.Parallel()
	for _, mode := range []infergate.ObjectMode{infergate.ObjectModeAuto, infergate.ObjectModeTool, infergate.ObjectModePrompt, infergate.ObjectModeJSONSchema} {
		gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Object: 42}, gatewaytest.Reply{Object: []string{"a", "b"}}))
		n, err := infergate.GenerateObject[int](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{Mode: mode})
		if err != nil || n.Value != 42 || n.Attempts != 1 {
			t.Fatalf("%v: %+v, %v", mode, n, err)
		}
		list, err := infergate.StreamObject[[]string](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{Mode: mode}).Wait()
		if err != nil || !cmp.Equal(list.Value, []string{"a", "b"}) || list.Attempts != 1 {
			t.Fatalf("%v: %+v, %v", mode, list, err)
		}
	}
}
