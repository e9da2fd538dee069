package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestNewToolFromSchemaRefusesCycles: a schema that applies itself to the same value would make
// the validator recurse until the stack overflows, which no recover catches: it is refused when the
// tool is made, with an error that names the tool and the cycle.
func TestNewToolFromSchemaRefusesCycles(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct{ schema, cycle string }{
		"allOf_root": {`{"type":"object","allOf":[{"$ref":"#"}]}`, "# → #/allOf/0 → #"},
		"ref_root":   {`{"$ref":"#"}`, "# → #"},
		"two_defs": {`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}}}`,
			"#/$defs/a → #/$defs/b → #/$defs/b/anyOf/0 → #/$defs/a"},
		"anchor": {`{"$ref":"#node","$defs":{"n":{"$anchor":"node","not":{"$ref":"#node"}}}}`,
			"#/$defs/n → #/$defs/n/not → #/$defs/n"},
		"id": {`{"$id":"https://example.com/root","$ref":"https://example.com/leaf",
			"$defs":{"leaf":{"$id":"https://example.com/leaf","oneOf":[{"$ref":"root"}]}}}`,
			"# → #/$defs/leaf → #/$defs/leaf/oneOf/0 → #"},
		"if_then": {`{"if":{"type":"object"},"then":{"$ref":"#/$defs/t"},"$defs":{"t":{"$ref":"#"}}}`,
			"# → #/then → #/$defs/t → #"},
		"dependent": {`{"type":"object","dependentSchemas":{"a":{"$ref":"#"}}}`, "# → #/dependentSchemas/a → #"},
		"dynamic_ref": {`{"$defs":{"d":{"$dynamicRef":"#/$defs/e"},"e":{"allOf":[{"$ref":"#/$defs/d"}]}},"properties":{"x":{"$ref":"#/$defs/d"}}}`,
			"#/$defs/d → #/$defs/e → #/$defs/e/allOf/0 → #/$defs/d"},
		"dynamic_anchor": {`{"$dynamicAnchor":"n","type":"object","allOf":[{"$dynamicRef":"#n"}]}`, "# → #/allOf/0 → #"},
		"draft07_id": {`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#a","allOf":[{"$ref":"#a"}]}},
			"properties":{"x":{"$ref":"#a"}}}`, "#/definitions/a → #/definitions/a/allOf/0 → #/definitions/a"},
	} {
		tool, err := infergate.NewToolFromSchema("tool_"+name, "", json.RawMessage(tt.schema), echoArguments)
		var v *infergate.ValidationError
		if !errors.As(err, &v) {
			t.Errorf("%s: got a tool (%v), want a ValidationError", name, tool != nil)
			continue
		}
		if v.Field != "tool tool_"+name || !strings.Contains(v.Reason, "("+tt.cycle+")") || !strings.Contains(err.Error(), "never end") {
			t.Errorf("%s: %v, want it to name the tool and the cycle %s", name, err, tt.cycle)
		}
	}
}

// TestNewToolFromSchemaRecursiveSchemas: schemas that refer to themselves through properties or
// items descend into the value at each turn, so they are accepted and validate, deep values
// included.
func TestNewToolFromSchemaRecursiveSchemas(t *testing.T) {
	t.Parallel()
	deep := func(levels int, leaf string) string {
		return strings.Repeat(`{"name":"n","children":[`, levels) + leaf + strings.Repeat(`]}`, levels)
	}
	for name, schema := range map[string]string{
		"root_ref": `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},
			"required":["name"]}`,
		"defs": `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","required":["name"],
			"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
		"anchor_allOf": `{"$defs":{"node":{"$anchor":"node","allOf":[{"required":["name"]}],"type":"object",
			"properties":{"name":{"type":"string"},"children":{"items":{"$ref":"#node"}}}}},"$ref":"#node"}`,
		"dynamic": `{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","required":["name"],
			"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
	} {
		tool, err := infergate.NewToolFromSchema("tree_"+name, "", json.RawMessage(schema), echoArguments)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for args, valid := range map[string]bool{
			deep(1, `{"name":"leaf"}`):   true,
			deep(200, `{"name":"leaf"}`): true,
			deep(200, `{"name":7}`):      false,
			deep(3, `{}`):                false,
		} {
			out, err := tool.Call(context.Background(), args)
			var te *infergate.ToolError
			switch {
			case valid && (err != nil || out != args):
				t.Errorf("%s: a valid tree %.40s…: %v", name, args, err)
			case !valid && (!errors.As(err, &te) || te.Stage != infergate.ToolStageArguments || errors.Is(err, infergate.ErrSchemaTooCostly)):
				t.Errorf("%s: an invalid tree %.40s…: %v, want it refused", name, args, err)
			}
		}
	}
}

// doublingSchema is a $defs chain in which each level is an allOf of two references to the next:
// checking any value against it takes 2^depth steps.
func doublingSchema(depth int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","allOf":[{"$ref":"#/$defs/d0"}],"$defs":{`)
	for i := range depth {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"object"}}}`, depth)
	return b.String()
}

// TestToolSchemaExponentialWork: a 2 KB schema that would pin a core for minutes makes the call
// fail as the tool's failure, promptly, inside a ToolTimeout loop that goes on to its answer; the
// function never runs on unchecked arguments. The ToolTimeout is generous so that a loaded machine
// cannot turn the refusal into a timeout: what stops the check is its cost bound, not the clock.
func TestToolSchemaExponentialWork(t *testing.T) {
	t.Parallel()
	var ran atomic.Bool
	tool, err := infergate.NewToolFromSchema("costly", "", json.RawMessage(doublingSchema(27)), func(context.Context, json.RawMessage) (string, error) {
		ran.Store(true)
		return "ran", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gw := gatewaytest.New(t)
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "c", Name: "costly", Arguments: `{}`}}},
		gatewaytest.Reply{Respond: answerFromTools})
	start := time.Now()
	res, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{
		Tools: []*infergate.FuncTool{tool}, ToolTimeout: 30 * time.Second,
	}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > time.Minute { // a sanity bound: the schema costs minutes
		t.Errorf("the loop took %v", elapsed)
	}
	if ran.Load() {
		t.Error("the function ran on arguments that were not checked")
	}
	var result *infergate.ToolError
	for _, m := range res.Messages {
		if m.Role == infergate.RoleTool && !strings.Contains(m.Content, "too much work") {
			t.Errorf("the model read %q", m.Content)
		}
	}
	_, err = tool.Call(context.Background(), `{}`)
	if !errors.As(err, &result) || result.Stage != infergate.ToolStageArguments || !errors.Is(err, infergate.ErrSchemaTooCostly) ||
		!strings.HasPrefix(result.Feedback(), "Invalid arguments for costly: they could not be checked") {
		t.Errorf("Call: %v, want a ToolError of stage arguments matching ErrSchemaTooCostly", err)
	}
	if want := "seen c=" + result.Feedback(); res.Answer.Text() != want {
		t.Errorf("answer %q, want %q", res.Answer.Text(), want)
	}
	small, err := infergate.NewToolFromSchema("cheap", "", json.RawMessage(doublingSchema(8)), echoArguments)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := small.Call(context.Background(), `{"a":1}`); err != nil || out != `{"a":1}` {
		t.Errorf("a chain of depth 8 (256 steps): %q, %v", out, err)
	}
}

// TestToolSchemaCostlyFailures: the validator's failures cost work too, since its error quotes the
// value and is copied at every level it returns through; schemas whose failures would take seconds
// are refused as too costly, not run.
func TestToolSchemaCostlyFailures(t *testing.T) {
	t.Parallel()
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":{"a":[1,2,3],"b":"text"}`, i)
	}
	big := "{" + strings.Join(keys, ",") + "}"
	for name, tt := range map[string]struct{ schema, args string }{
		// each of 1000 failing branches quotes a 1000-property value: 2 s before
		"anyOf_quotes": {`{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"type":"string"},`, 1000), ",") + `]}`, big},
		// each of 200 branches fails 2000 levels down, and its message is wrapped at every level,
		// each wrap naming its schema: 6 s before
		"anyOf_ref_chains": {refChains(200, 1000), `{}`},
	} {
		tool, err := infergate.NewToolFromSchema("t_"+name, "", json.RawMessage(tt.schema), echoArguments)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tool.Call(context.Background(), tt.args); !errors.Is(err, infergate.ErrSchemaTooCostly) {
			t.Errorf("%s: %.200v, want ErrSchemaTooCostly", name, err)
		}
	}
}

// refChains is an anyOf of branches, each a chain of references levels long that ends in a
// failure.
func refChains(branches, levels int) string {
	var b strings.Builder
	b.WriteString(`{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/d0"},`, branches), ",") + `],"$defs":{`)
	for i := range levels {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"}]},`, i, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, levels)
	return b.String()
}

// TestToolCallContextEndsCheck: the check of the arguments is part of the call: a call whose
// context has ended stops checking and never runs the function.
func TestToolCallContextEndsCheck(t *testing.T) {
	t.Parallel()
	var ran atomic.Bool
	tool, err := infergate.NewToolFromSchema("list", "", json.RawMessage(`{"type":"array","items":{"type":"integer"}}`),
		func(context.Context, json.RawMessage) (string, error) {
			ran.Store(true)
			return "ran", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	args := "[" + strings.TrimSuffix(strings.Repeat("1,", 5000), ",") + "]"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var te *infergate.ToolError
	if _, err := tool.Call(ctx, args); !errors.As(err, &te) || te.Stage != infergate.ToolStageRun || !errors.Is(err, context.Canceled) {
		t.Errorf("Call with an ended context: %v, want a ToolError of stage run wrapping context.Canceled", err)
	}
	if ran.Load() {
		t.Error("the function ran")
	}
	if out, err := tool.Call(context.Background(), args); err != nil || out != "ran" {
		t.Errorf("Call: %q, %v", out, err)
	}
}

// TestNewToolFromSchemaRefToNothing: a $ref to a keyword the schema leaves out (#/not) resolves,
// in the validator, to no schema, on which it panics when a value reaches it: such a schema is one
// the validator cannot apply, and the tool checks only that the arguments are JSON.
func TestNewToolFromSchemaRefToNothing(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/not"}}}`,
		`{"$ref":"#/additionalProperties"}`,
		`{"allOf":[{"$ref":"#/$defs/x/items"}],"$defs":{"x":{"type":"array"}}}`,
	} {
		tool, err := infergate.NewToolFromSchema("nothing", "", json.RawMessage(schema), echoArguments)
		if err != nil {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		if out, err := tool.Call(context.Background(), `{"a":1}`); err != nil || out != `{"a":1}` {
			t.Errorf("%s: %q, %v; want the arguments unchecked", schema, out, err)
		}
	}
}

// selfish is a type whose own schema applies itself to the same value.
type selfish struct{}

// JSONSchema gives selfish its schema.
func (selfish) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"$anchor":"me","type":"object","allOf":[{"$ref":"#me"}]}`)
}

// TestNewToolRefusesCycles: a Go type's own schema goes through the same check as a raw one: a
// cycle in it is refused when the tool is made, for typed tools as for GenerateObject.
func TestNewToolRefusesCycles(t *testing.T) {
	t.Parallel()
	type args struct {
		S selfish `json:"s"`
	}
	_, err := infergate.NewTool("selfish", "", func(context.Context, args) (string, error) { return "", nil })
	var v *infergate.ValidationError
	const cycle = "#/properties/s → #/properties/s/allOf/0 → #/properties/s"
	if !errors.As(err, &v) || v.Field != "tool selfish" || !strings.Contains(v.Reason, cycle) {
		t.Errorf("NewTool: %v, want a ValidationError naming the cycle", err)
	}
	gw := gatewaytest.New(t)
	if _, err := infergate.GenerateObject[args](context.Background(), gw.Client().Chat, hello(), infergate.ObjectSpec{}); !errors.As(err, &v) ||
		!strings.Contains(v.Reason, cycle) {
		t.Errorf("GenerateObject: %v, want a ValidationError naming the cycle", err)
	}
}
