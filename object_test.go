package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

type Recipe struct {
	Name  string   `json:"name" jsonschema:"the dish"`
	Steps []string `json:"steps"`
	Note  string   `json:"note,omitempty"`
	Diet  string   `json:"diet,omitempty" enum:"vegan,vegetarian,any"`
}

var pancakes = Recipe{Name: "Pancakes", Steps: []string{"mix", "fry"}, Diet: "vegetarian"}

const pancakesJSON = `{"name":"Pancakes","steps":["mix","fry"],"diet":"vegetarian"}`

func recipeRequest() infergate.ChatRequest {
	return infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("A pancake recipe, please.")}}
}

func TestGenerateObjectToolMode(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{
		ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: pancakesJSON}}}))
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pancakes, obj.Value); diff != "" {
		t.Fatalf("value (-want +got):\n%s", diff)
	}
	if string(obj.Raw) != pancakesJSON || obj.Mode != infergate.ObjectModeTool || obj.Attempts != 1 ||
		obj.Usage.TotalTokens == 0 || obj.Completion == nil {
		t.Fatalf("object %+v", obj)
	}
	body := gw.Requests()[0].JSON
	choice, _ := json.Marshal(body["tool_choice"])
	if string(choice) != `{"function":{"name":"Recipe"},"type":"function"}` {
		t.Fatalf("tool_choice %s", choice)
	}
	fn := body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	params, _ := json.Marshal(fn["parameters"])
	// Strict: every property required, the optional ones nullable, no other property allowed.
	for _, want := range []string{`"required":["name","steps","note","diet"]`, `"additionalProperties":false`,
		`"note":{"type":["string","null"]}`, `"enum":["vegan","vegetarian","any",null]`} {
		if !strings.Contains(string(params), want) {
			t.Errorf("parameters lack %s: %s", want, params)
		}
	}
	if fn["strict"] != true {
		t.Errorf("strict %v", fn["strict"])
	}
}

func TestGenerateObjectStrictNullDecodesAsZero(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{Name: "Recipe", Arguments: `{"name":"Tea","steps":["boil"],"note":null,"diet":null}`}}}))
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{Mode: infergate.ObjectModeTool})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Recipe{Name: "Tea", Steps: []string{"boil"}}, obj.Value); diff != "" {
		t.Fatalf("value (-want +got):\n%s", diff)
	}
}

func TestGenerateObjectFromSchemaSample(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t) // nothing scripted: the fake answers the forced call from the schema
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Recipe{Name: "example", Steps: []string{"example"}, Note: "example", Diet: "vegan"}, obj.Value); diff != "" {
		t.Fatalf("value (-want +got):\n%s", diff)
	}
}

// The deployed gateway drops response_format, and some providers answer a forced call with prose:
// JSONSchema alone cannot get the value there, Auto can.
func TestAutoSucceedsWhereJSONSchemaCannotThroughTodaysGateway(t *testing.T) {
	t.Parallel()
	prose := "<think>The user wants {pancakes}. I will answer in JSON.</think>Sure! Here it is:\n```json\n" +
		pancakesJSON + "\n```\nEnjoy {your meal}."
	gw := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{Content: "Mix flour, eggs and milk, then fry."}, // the model never saw the schema
		gatewaytest.Reply{Content: prose}))                                // tool_choice ignored, JSON in prose
	chat := gw.Client().Chat
	_, err := infergate.GenerateObject[Recipe](context.Background(), chat, recipeRequest(),
		infergate.ObjectSpec{Mode: infergate.ObjectModeJSONSchema, MaxAttempts: 1})
	var oe *infergate.ObjectError
	if !errors.Is(err, infergate.ErrNoObject) || !errors.As(err, &oe) || oe.Attempts != 1 || oe.Raw == "" {
		t.Fatalf("JSONSchema through today's gateway: %v", err)
	}
	if gw.Requests()[0].JSON["response_format"] == nil {
		t.Fatal("response_format was not sent")
	}
	obj, err := infergate.GenerateObject[Recipe](context.Background(), chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pancakes, obj.Value); diff != "" || obj.Mode != infergate.ObjectModePrompt || string(obj.Raw) != pancakesJSON {
		t.Fatalf("mode %v raw %s (-want +got):\n%s", obj.Mode, obj.Raw, diff)
	}
}

func TestJSONSchemaModeWhereHonoured(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Object: pancakes}))
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(),
		infergate.ObjectSpec{Mode: infergate.ObjectModeJSONSchema, Name: "recipe", Description: "a recipe"})
	if err != nil {
		t.Fatal(err)
	}
	if obj.Mode != infergate.ObjectModeJSONSchema || obj.Value.Name != "Pancakes" {
		t.Fatalf("object %+v", obj)
	}
	format, _ := json.Marshal(gw.Requests()[0].JSON["response_format"])
	for _, want := range []string{`"type":"json_schema"`, `"name":"recipe"`, `"strict":true`, `"description":"a recipe"`} {
		if !strings.Contains(string(format), want) {
			t.Errorf("response_format lacks %s: %s", want, format)
		}
	}
}

func TestPromptModeSendsTheSchema(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "```\n" + pancakesJSON + "\n```"}))
	req := recipeRequest()
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, req, infergate.ObjectSpec{Mode: infergate.ObjectModePrompt})
	if err != nil || obj.Mode != infergate.ObjectModePrompt || obj.Value.Name != "Pancakes" {
		t.Fatalf("%+v %v", obj, err)
	}
	turns := gw.Requests()[0].Turns()
	if turns[0].Role != "system" || !strings.Contains(turns[0].Content, `"required":["name","steps","note","diet"]`) {
		t.Fatalf("first turn %+v", turns[0])
	}
	if gw.Requests()[0].JSON["tool_choice"] != nil || len(req.Messages) != 1 {
		t.Fatal("prompt mode forced a tool, or changed the caller's request")
	}
}

func TestRepairAfterSchemaViolation(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "call_bad", Name: "Recipe", Arguments: `{"name":"Pancakes"}`}}},
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: pancakesJSON}}}))
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if obj.Attempts != 2 || obj.Value.Name != "Pancakes" {
		t.Fatalf("object %+v", obj)
	}
	turns := gw.Requests()[1].Turns()
	last := turns[len(turns)-1]
	if last.Role != "tool" || last.ToolCallID != "call_bad" || !strings.Contains(last.Content, "steps") {
		t.Fatalf("repair turn %+v", last)
	}
}

func TestAutoFallsBackToPrompt(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{Content: "I'd rather just chat about pancakes."},
		gatewaytest.Reply{Content: pancakesJSON}))
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if obj.Attempts != 2 || obj.Mode != infergate.ObjectModePrompt {
		t.Fatalf("object %+v", obj)
	}
	second := gw.Requests()[1]
	turns := second.Turns()
	if second.JSON["tool_choice"] != nil || !strings.Contains(turns[len(turns)-1].Content, "JSON Schema") {
		t.Fatalf("second attempt %s", second.Body)
	}
}

func TestTruncatedAnswerSaysSo(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{FinishReason: "length",
		ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: `{"name":"Panc`}}}))
	_, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	var oe *infergate.ObjectError
	var syntax *json.SyntaxError
	if !errors.As(err, &oe) || oe.FinishReason != infergate.FinishReasonLength || oe.Attempts != 1 ||
		!strings.Contains(err.Error(), "cut short") || !errors.As(err, &syntax) || oe.Raw != `{"name":"Panc` {
		t.Fatalf("error %v", err)
	}
	if n := len(gw.Requests()); n != 1 {
		t.Fatalf("a cut answer was repaired: %d requests", n)
	}
}

func TestMaxAttemptsExhausted(t *testing.T) {
	t.Parallel()
	bad := gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: `{"name":1,"steps":[]}`}}}
	gw := gatewaytest.New(t, gatewaytest.WithReplies(bad, bad, bad))
	_, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{MaxAttempts: 2})
	var oe *infergate.ObjectError
	if !errors.As(err, &oe) || oe.Attempts != 2 || len(gw.Requests()) != 2 {
		t.Fatalf("error %v", err)
	}
	// user, answer, tool result, answer
	if len(oe.Messages) != 4 || oe.Usage.TotalTokens == 0 || oe.Err == nil {
		t.Fatalf("transcript %d messages, usage %+v, err %v", len(oe.Messages), oe.Usage, oe.Err)
	}
}

func TestObjectSpecValidation(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	chat := gw.Client().Chat
	ctx := context.Background()
	cases := map[string]error{}
	_, cases["name"] = infergate.GenerateObject[Recipe](ctx, chat, recipeRequest(), infergate.ObjectSpec{Name: "a b"})
	_, cases["attempts"] = infergate.GenerateObject[Recipe](ctx, chat, recipeRequest(), infergate.ObjectSpec{MaxAttempts: -1})
	_, cases["mode"] = infergate.GenerateObject[Recipe](ctx, chat, recipeRequest(), infergate.ObjectSpec{Mode: 9})
	_, cases["no messages"] = infergate.GenerateObject[Recipe](ctx, chat, infergate.ChatRequest{}, infergate.ObjectSpec{})
	_, cases["stream"] = infergate.StreamObject[Recipe](ctx, chat, recipeRequest(), infergate.ObjectSpec{Name: "a b"}).Wait()
	for name, err := range cases {
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: %v, want a *ValidationError", name, err)
		}
	}
	if len(gw.Requests()) != 0 {
		t.Fatal("an invalid request was sent")
	}
}

func TestStreamObjectToolFragments(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Reasoning: "thinking it over",
		Quirks:    gatewaytest.Quirks{ArgChunkSize: 3, EmptyArgsFirst: true, BlankIDs: true},
		ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: pancakesJSON}}}))
	st := infergate.StreamObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	var partials []Recipe
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
	if len(partials) < 5 || st.Attempt() != 1 {
		t.Fatalf("%d partials, attempt %d", len(partials), st.Attempt())
	}
	for _, p := range partials {
		if !strings.HasPrefix(obj.Value.Name, p.Name) || len(p.Steps) > len(obj.Value.Steps) {
			t.Fatalf("partial %+v contradicts %+v", p, obj.Value)
		}
	}
	if diff := cmp.Diff(obj.Value, partials[len(partials)-1]); diff != "" {
		t.Fatalf("last partial (-final +partial):\n%s", diff)
	}
}

// A key met again starts its value over, whatever its kind: the last partial is the value, not the
// two lists joined, and none after the key is met again shows the earlier list or enum.
func TestStreamObjectKeyMetAgain(t *testing.T) {
	t.Parallel()
	args := `{"name":"Pan","steps":["mix","fry"],"diet":"vegan","steps":["stir"],"diet":"any","note":"x","name":"Crêpes"}`
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{
		Quirks: gatewaytest.Quirks{ArgChunkSize: 4}, ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: args}}}))
	st := infergate.StreamObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	var partials []Recipe
	for p, err := range st.Partials() {
		if err != nil {
			t.Fatal(err)
		}
		p.Steps = slices.Clone(p.Steps) // partials share their slices with later ones
		partials = append(partials, p)
	}
	obj, err := st.Wait()
	if err != nil {
		t.Fatal(err)
	}
	want := Recipe{Name: "Crêpes", Steps: []string{"stir"}, Note: "x", Diet: "any"}
	if diff := cmp.Diff(want, obj.Value); diff != "" {
		t.Fatalf("value (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, partials[len(partials)-1]); diff != "" {
		t.Fatalf("last partial (-want +got):\n%s", diff)
	}
	for _, p := range partials {
		if p.Note == "x" && (!slices.Equal(p.Steps, want.Steps) || p.Diet != want.Diet) {
			t.Fatalf("partial %+v shows an earlier value after its key was met again", p)
		}
	}
}

func TestStreamObjectStopsWhenTheCallerBreaks(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{
		Quirks: gatewaytest.Quirks{ArgChunkSize: 2}, ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: pancakesJSON}}}))
	st := infergate.StreamObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	for range st.Partials() {
		break
	}
	if _, err := st.Wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
}

func TestStreamObjectReportsABrokenStream(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: pancakesJSON,
		Chunks: []string{`{"name":"Pan`, `cakes","steps":["mix"`, `,"fry"]}`},
		Quirks: gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{After: 2, Status: 502}}}))
	st := infergate.StreamObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{Mode: infergate.ObjectModePrompt})
	var last error
	for _, err := range st.Partials() {
		last = err
	}
	var se *infergate.StreamError
	if !errors.As(last, &se) {
		t.Fatalf("error %v, want a *StreamError", last)
	}
}

// BenchmarkGenerateObjectOverhead compares GenerateObject with Create on the same request and the
// same answer (a forced call with a recipe), both through a loopback fake: the difference is what
// objects add (the tool, the schema check, the decoding into the type), the schema being derived
// once per type and cached.
func BenchmarkGenerateObjectOverhead(b *testing.B) {
	srv := gatewaytest.NewServer()
	defer srv.Close()
	client := srv.Client()
	steps := make([]string, 40)
	for i := range steps {
		steps[i] = fmt.Sprintf("step %d: stir the batter gently", i)
	}
	args, _ := json.Marshal(Recipe{Name: "Pancakes", Steps: steps, Diet: "vegan"})
	reply := gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: string(args)}}}
	schema, err := infergate.SchemaFor[Recipe]()
	if err != nil {
		b.Fatal(err)
	}
	plain := recipeRequest()
	plain.Tools = []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "Recipe", Parameters: schema}}}
	plain.ToolChoice = infergate.ToolChoiceFunction("Recipe")
	ctx := context.Background()
	b.Run("Create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			srv.Enqueue(reply)
			c, err := client.Chat.Create(ctx, plain)
			if err != nil || len(c.ToolCalls()) != 1 {
				b.Fatal(err)
			}
		}
	})
	b.Run("GenerateObject", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			srv.Enqueue(reply)
			obj, err := infergate.GenerateObject[Recipe](ctx, client.Chat, recipeRequest(), infergate.ObjectSpec{})
			if err != nil || len(obj.Value.Steps) != 40 {
				b.Fatal(err)
			}
		}
	})
}

// TestStreamObjectRandomValues streams random recipes through the fake, as call fragments and as
// text, cut at random sizes: every partial is a prefix of the value and the value comes out whole.
func TestStreamObjectRandomValues(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 7))
	runes := []rune("ab \"\\/\n\té日😀<>{}")
	text := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		return b.String()
	}
	gw := gatewaytest.New(t)
	for i := range 30 {
		want := Recipe{Name: text(30), Steps: []string{}, Note: text(10), Diet: []string{"", "vegan", "any"}[rng.IntN(3)]}
		for range rng.IntN(4) {
			want.Steps = append(want.Steps, text(12))
		}
		raw, _ := json.Marshal(want)
		spec := infergate.ObjectSpec{Mode: infergate.ObjectModeTool}
		reply := gatewaytest.Reply{Quirks: gatewaytest.Quirks{ArgChunkSize: 1 + rng.IntN(9), EmptyArgsFirst: i%2 == 0},
			ToolCalls: []gatewaytest.ToolCall{{Name: "Recipe", Arguments: string(raw)}}}
		if i%2 == 1 {
			spec.Mode = infergate.ObjectModePrompt
			reply = gatewaytest.Reply{Chunks: splitRandomly(rng, "<think>hmm {</think>```json\n"+string(raw)+"\n```")}
		}
		gw.Enqueue(reply)
		st := infergate.StreamObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), spec)
		var partials []Recipe
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
		if diff := cmp.Diff(want, obj.Value); diff != "" {
			t.Fatalf("value (-want +got):\n%s", diff)
		}
		for _, p := range partials {
			if !strings.HasPrefix(want.Name, p.Name) || !strings.HasPrefix(want.Note, p.Note) ||
				(p.Diet != "" && p.Diet != want.Diet) || len(p.Steps) > len(want.Steps) || !slices.Equal(p.Steps, want.Steps[:len(p.Steps)]) {
				t.Fatalf("partial %+v contradicts %+v", p, want)
			}
		}
	}
}

func splitRandomly(rng *rand.Rand, s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 1+rng.IntN(7))
		for n < len(s) && !utf8.RuneStart(s[n]) { // the fake sends each piece as a JSON string
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func TestMapsAreNotSentStrict(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Object: map[string]int{"eggs": 2}}))
	obj, err := infergate.GenerateObject[map[string]int](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil || obj.Value["eggs"] != 2 {
		t.Fatalf("%+v %v", obj, err)
	}
	fn := gw.Requests()[0].JSON["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if _, ok := fn["strict"]; ok || fn["name"] != "answer" {
		t.Fatalf("a map's schema cannot be strict, and an unnamed type is an answer: %v", fn)
	}
}

func TestSchemaForRefusesWhatJSONSchemaCannotSay(t *testing.T) {
	t.Parallel()
	type withChannel struct {
		C chan int `json:"c"`
	}
	if _, err := infergate.SchemaFor[withChannel](); err == nil {
		t.Fatal("a channel got a schema")
	}
	_, err := infergate.GenerateObject[withChannel](context.Background(), gatewaytest.New(t).Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	var ve *infergate.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v, want a *ValidationError", err)
	}
	s, err := infergate.SchemaFor[[]string]()
	if err != nil || string(s) != `{"type":["null","array"],"items":{"type":"string"}}` {
		t.Fatalf("%s %v", s, err)
	}
	s[len(s)-3] = 'X' // the caller's own bytes: the next caller still gets the schema
	if again, _ := infergate.SchemaFor[[]string](); string(again) != `{"type":["null","array"],"items":{"type":"string"}}` {
		t.Fatalf("SchemaFor handed out shared bytes: %s", again)
	}
}
