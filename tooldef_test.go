package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

const searchSchema = `{
	"type": "object",
	"properties": {
		"query": {"type": "string", "minLength": 1},
		"limit": {"type": "integer", "minimum": 1, "maximum": 50},
		"sort":  {"$ref": "#/$defs/order"}
	},
	"required": ["query"],
	"additionalProperties": false,
	"$defs": {"order": {"enum": ["newest", "oldest"]}}
}`

func echoArguments(_ context.Context, arguments json.RawMessage) (string, error) {
	return string(arguments), nil
}

func TestNewToolFromSchemaValidates(t *testing.T) {
	t.Parallel()
	tool, err := infergate.NewToolFromSchema("search", "Searches.", json.RawMessage(searchSchema), echoArguments)
	if err != nil {
		t.Fatal(err)
	}
	if def := tool.Definition(); def.Function.Name != "search" || def.Function.Description != "Searches." {
		t.Errorf("definition %+v", def)
	}
	sent, _ := json.Marshal(tool.Definition().Function.Parameters)
	if !jsonEqual(string(sent), searchSchema) {
		t.Errorf("the schema sent to the model is %s, want it as given", sent)
	}
	for args, want := range map[string]string{
		`{"query":"go","limit":3,"sort":"newest"}`: "",
		`  `:                          `Invalid arguments for search: "query" is required.`,
		`{"query":""}`:                `Invalid arguments for search: "query" must be at least 1 characters long, not 0.`,
		`{"query":"go","limit":0}`:    `Invalid arguments for search: "limit" must be at least 1.`,
		`{"query":"go","limit":2.5}`:  `Invalid arguments for search: "limit" must be an integer, not a number.`,
		`{"query":"go","sort":"top"}`: `Invalid arguments for search: "sort" must be one of "newest", "oldest".`,
		`{"query":"go","page":2}`:     `Invalid arguments for search: "page" is not a known property.`,
	} {
		out, err := tool.Call(context.Background(), args)
		var te *infergate.ToolError
		switch {
		case want == "" && (err != nil || out != args):
			t.Errorf("Call(%s) = %q, %v; want the arguments passed through", args, out, err)
		case want != "" && (!errors.As(err, &te) || te.Stage != infergate.ToolStageArguments || te.Feedback() != want):
			t.Errorf("Call(%s): %v, want feedback %q", args, err, want)
		}
	}
	failing, err := infergate.NewToolFromSchema("fails", "", nil, func(context.Context, json.RawMessage) (string, error) {
		return "", errors.New("quota exceeded")
	})
	if err != nil {
		t.Fatal(err)
	}
	var te *infergate.ToolError
	if _, err := failing.Call(context.Background(), `{}`); !errors.As(err, &te) || te.Stage != infergate.ToolStageRun || te.Feedback() != "fails failed: quota exceeded" {
		t.Errorf("a failing function: %v", err)
	}
	panics, _ := infergate.NewToolFromSchema("panics", "", nil, func(context.Context, json.RawMessage) (string, error) { panic("oops") })
	if _, err := panics.Call(context.Background(), `{}`); !errors.As(err, &te) || te.Stage != infergate.ToolStagePanic {
		t.Errorf("a panicking function: %v", err)
	}
}

// TestNewToolFromSchemaUnsupported: a schema the validator cannot apply is still sent to the model,
// and the tool then checks only that the arguments are JSON.
func TestNewToolFromSchemaUnsupported(t *testing.T) {
	t.Parallel()
	for name, schema := range map[string]string{
		"remote_ref":  `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}},"required":["a"]}`,
		"dynamic_ref": `{"type":"object","properties":{"a":{"$dynamicRef":"#missing"}},"required":["a"]}`,
		"draft_04":    `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","required":["a"]}`,
		"bad_type":    `{"type":"object","properties":{"a":{"type":7}},"required":["a"]}`,
		// the validator would take seconds to read it: the depth of JSON it reads is bounded
		"deep": `{"type":"object","required":["a"],"properties":{"x":` + strings.Repeat(`{"not":`, 3000) + `{}` +
			strings.Repeat(`}`, 3000) + `}}`,
		"nil_target": `{"type":"object","properties":{"a":{"$ref":"#/not"}},"required":["a"]}`,
	} {
		tool, err := infergate.NewToolFromSchema(name, "", json.RawMessage(schema), echoArguments)
		if err != nil {
			t.Errorf("%s: %v, want the tool", name, err)
			continue
		}
		if out, err := tool.Call(context.Background(), `{"b":1}`); err != nil || out != `{"b":1}` {
			t.Errorf("%s: Call = %q, %v; want the arguments unchecked", name, out, err)
		}
		var te *infergate.ToolError
		if _, err := tool.Call(context.Background(), `{"b":`); !errors.As(err, &te) || te.Stage != infergate.ToolStageArguments {
			t.Errorf("%s: arguments that are not JSON: %v", name, err)
		}
		req := hello()
		req.Tools = []infergate.Tool{tool.Definition()}
		if err := req.Validate(); err != nil {
			t.Errorf("%s: the definition is not a valid request tool: %v", name, err)
		}
	}
}

func TestNewToolFromSchemaRefusesBadInput(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		name, schema string
		fn           func(context.Context, json.RawMessage) (string, error)
	}{
		"bad name":    {"fs.read", `{"type":"object"}`, echoArguments},
		"nil func":    {"ok", `{"type":"object"}`, nil},
		"not JSON":    {"ok", `{"type":`, echoArguments},
		"not object":  {"ok", `["type"]`, echoArguments},
		"null schema": {"ok", `null`, echoArguments},
	} {
		if _, err := infergate.NewToolFromSchema(tt.name, "", json.RawMessage(tt.schema), tt.fn); !isValidation(err) {
			t.Errorf("%s: %v, want a ValidationError", name, err)
		}
	}
}

// TestRunToolsWithSchemaTool: a raw-schema tool runs in the loop like a typed one.
func TestRunToolsWithSchemaTool(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	tool, err := infergate.NewToolFromSchema("search", "Searches.", json.RawMessage(searchSchema), echoArguments)
	if err != nil {
		t.Fatal(err)
	}
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "s", Name: "search", Arguments: `{"query":"go"}`}, {ID: "t", Name: "search", Arguments: `{}`}}},
		gatewaytest.Reply{Respond: answerFromTools})
	res, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{tool}}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := `seen s={"query":"go"}; t=Invalid arguments for search: "query" is required.`; res.Answer.Text() != want {
		t.Errorf("answer %q, want %q", res.Answer.Text(), want)
	}
}

// FuzzNewToolFromSchema: any schema bytes and any arguments give a tool or a ValidationError, and
// a call that either runs or fails with a *ToolError, in bounded time; never a panic, and never the
// stack overflow of a schema that applies itself to the same value.
func FuzzNewToolFromSchema(f *testing.F) {
	f.Add(searchSchema, `{"query":"go"}`)
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#"}}}`, `{"a":{"a":{"a":1}}}`)
	f.Add(`{"type":"object","patternProperties":{"^x":{"type":"integer"}},"additionalProperties":false}`, `{"xy":1.5,"z":1}`)
	f.Add(`{"allOf":[{"required":["a"]},{"properties":{"a":{"const":[1]}}}]}`, `{"a":[2]}`)
	f.Add(`{"type":["string","null"],"pattern":"("}`, `"x"`)
	f.Add(`{"type":"object","allOf":[{"$ref":"#"}]}`, `{}`)
	f.Add(`{"$ref":"#n","$defs":{"x":{"$anchor":"n","not":{"$ref":"#n"}}}}`, `{}`)
	f.Add(`{"$id":"https://e.test/r","$ref":"l","$defs":{"l":{"$id":"https://e.test/l","oneOf":[{"$ref":"r"}]}}}`, `{}`)
	f.Add(`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}}}`, `{}`)
	f.Add(doublingSchema(27), `{"a":1}`)
	f.Add(`{"properties":{"a":{"$ref":"#/not"}}}`, `{"a":1}`)
	f.Add(`{"anyOf":[{"type":"string"},{"type":"object","properties":{"a":{"$ref":"#"}}}]}`, `{"a":{"a":{"a":{"a":1}}}}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		start := time.Now()
		tool, err := infergate.NewToolFromSchema("fuzz", "", json.RawMessage(schema), echoArguments)
		if err != nil {
			if !isValidation(err) {
				t.Fatalf("NewToolFromSchema(%q): %v", schema, err)
			}
			return
		}
		out, err := tool.Call(context.Background(), args)
		var te *infergate.ToolError
		if err != nil && (!errors.As(err, &te) || te.Stage != infergate.ToolStageArguments || te.Feedback() == "") {
			t.Fatalf("Call(%q) on %q: %v", args, schema, err)
		}
		if err == nil && !json.Valid([]byte(out)) {
			t.Fatalf("Call(%q) = %q", args, out)
		}
		if elapsed := time.Since(start); elapsed > 10*time.Second { // a sanity bound: the work is bounded far below
			t.Fatalf("Call(%q) on %q took %v", args, schema, elapsed)
		}
	})
}
