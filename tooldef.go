package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/infergate/infergate-go/internal/jsonwrite"
	schemacheck "github.com/infergate/infergate-go/internal/schema"
)

// Tool is a function the model may call.
type Tool struct {
	Type     string             `json:"type"`     // "function"; empty is sent as "function"
	Function FunctionDefinition `json:"function"` // the function's name, description and parameters
}

type plainTool Tool

// MarshalJSON sends an empty Type as "function", the only type the API has.
func (t Tool) MarshalJSON() ([]byte, error) {
	if t.Type == "" {
		t.Type = "function"
	}
	return json.Marshal(plainTool(t))
}

// FunctionDefinition describes a callable function to the model.
type FunctionDefinition struct {
	Name        string `json:"name"`                  // letters, digits, '_' and '-', at most 64
	Description string `json:"description,omitempty"` // what the function does, for the model to decide when to call it
	// Parameters is the JSON Schema of the arguments: a map, a struct, or json.RawMessage. It must
	// encode to a JSON object.
	Parameters any   `json:"parameters,omitempty"`
	Strict     *bool `json:"strict,omitempty"` // ask for arguments that follow the schema exactly
}

// functionTool returns a function tool; parameters is its JSON Schema (nil for none).
func functionTool(name, description string, parameters any) Tool {
	return Tool{Type: "function", Function: FunctionDefinition{Name: name, Description: description, Parameters: parameters}}
}

// appendTools appends tools as json.Marshal(tools) writes them, without reflection: each field
// through jsonwrite, and the parameters through parametersJSON, but for the tools whose bit is set
// in verbatim (bit i for tools[i]), whose parameters a request's check proved to be a
// json.RawMessage written as it is (ChatRequest.check) and are copied without a second proof.
// When encoding/json refuses a tool's parameters, the tools are handed to it whole, so that its
// error is the one returned.
func appendTools(b []byte, tools []Tool, verbatim uint64) ([]byte, error) {
	start := len(b)
	b = append(b, '[')
	for i := range tools {
		t := &tools[i]
		if i > 0 {
			b = append(b, ',')
		}
		kind := t.Type
		if kind == "" {
			kind = "function"
		}
		b = append(b, `{"type":`...)
		b = jsonwrite.HTMLString(b, kind)
		b = append(b, `,"function":{"name":`...)
		b = jsonwrite.HTMLString(b, t.Function.Name)
		if t.Function.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonwrite.HTMLString(b, t.Function.Description)
		}
		if t.Function.Parameters != nil {
			var raw []byte
			var err error
			if i < 64 && verbatim&(1<<i) != 0 {
				raw = t.Function.Parameters.(json.RawMessage)
			} else {
				raw, _, err = parametersJSON(t.Function.Parameters)
			}
			if err != nil {
				whole, err := json.Marshal(tools)
				if err != nil {
					return nil, err
				}
				return append(b[:start], whole...), nil
			}
			b = append(append(b, `,"parameters":`...), raw...)
		}
		if t.Function.Strict != nil {
			b = strconv.AppendBool(append(b, `,"strict":`...), *t.Function.Strict)
		}
		b = append(b, '}', '}')
	}
	return append(b, ']'), nil
}

// toolsSize guesses the encoded size of tools, for the body's first allocation: the parameters
// are counted when they are JSON already.
func toolsSize(tools []Tool) int {
	n := 0
	for i := range tools {
		f := &tools[i].Function
		n += 64 + len(f.Name) + len(f.Description)
		if raw, ok := f.Parameters.(json.RawMessage); ok {
			n += len(raw)
		}
	}
	return n
}

// parametersJSON returns the JSON that encoding/json writes for a tool's parameters. A
// json.RawMessage, what a schema given as JSON is held as, is its own encoding when
// jsonwrite.Verbatim proves that encoding/json would keep it as it is (verbatim), and is then
// returned without a copy; any other value is encoded by encoding/json.
func parametersJSON(params any) (raw []byte, verbatim bool, err error) {
	if raw, ok := params.(json.RawMessage); ok && jsonwrite.Verbatim(raw) {
		return raw, true, nil
	}
	raw, err = json.Marshal(params)
	return raw, false, err
}

// isFunctionName reports whether name is a function's name as the API takes it: 1 to 64 letters,
// digits, '_' or '-' (ASCII).
func isFunctionName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !isFunctionRune(r) {
			return false
		}
	}
	return true
}

// isFunctionRune reports whether a function's name may hold r.
func isFunctionRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-'
}

// ToolChoice controls tool calling. The zero value leaves it to the model (the field is omitted); use
// ToolChoiceNone, ToolChoiceAuto, ToolChoiceRequired or ToolChoiceFunction.
type ToolChoice struct {
	mode     string
	function string
}

// The tool choice modes.
var (
	ToolChoiceNone     = ToolChoice{mode: "none"}     // never call a tool
	ToolChoiceAuto     = ToolChoice{mode: "auto"}     // the model decides
	ToolChoiceRequired = ToolChoice{mode: "required"} // call at least one tool
)

// ToolChoiceFunction forces a call of the named function.
func ToolChoiceFunction(name string) ToolChoice { return ToolChoice{function: name} }

// IsZero reports whether no choice was made, so that the field is omitted.
func (t ToolChoice) IsZero() bool { return t == ToolChoice{} }

// Equal reports whether t and u make the same choice. go-cmp uses it, so requests holding a
// ToolChoice compare with cmp.Diff without options.
func (t ToolChoice) Equal(u ToolChoice) bool { return t == u }

// MarshalJSON sends a mode as a string and a named function as {"type":"function",...}.
func (t ToolChoice) MarshalJSON() ([]byte, error) {
	if t.function != "" {
		return json.Marshal(namedToolChoice{Type: "function", Function: struct {
			Name string `json:"name"`
		}{t.function}})
	}
	return json.Marshal(t.mode)
}

// UnmarshalJSON reads either form.
func (t *ToolChoice) UnmarshalJSON(b []byte) error {
	var named namedToolChoice
	if err := json.Unmarshal(b, &named); err == nil {
		*t = ToolChoice{function: named.Function.Name}
		return nil
	}
	var mode string
	if err := json.Unmarshal(b, &mode); err != nil {
		return fmt.Errorf("infergate: tool_choice is neither a mode nor a function: %s", b)
	}
	*t = ToolChoice{mode: mode}
	return nil
}

// String shows the choice as it is sent.
func (t ToolChoice) String() string {
	if t.function != "" {
		return "function:" + t.function
	}
	return t.mode
}

type namedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// NewToolFromSchema makes a tool whose arguments' JSON Schema is given as JSON rather than derived
// from a Go type: a schema written by hand, loaded from a file, or announced by another system
// (an MCP server, say). The schema must be a JSON object (empty means a tool without arguments);
// it is sent to the model as it is. fn receives the arguments the model sent, as a JSON value.
//
// Arguments are validated against the schema before fn runs when the validator
// (github.com/google/jsonschema-go, JSON Schema draft 2020-12 and draft-07) can resolve it. A
// schema it cannot resolve — a $ref to another document, a $dynamicRef without its anchor, a $ref
// to a keyword that holds no schema, another $schema version, JSON nested more than 256 levels
// deep (the validator takes time quadratic in the depth to read it) — is still sent to the model,
// and the tool then validates nothing but that the arguments are JSON: fn must expect anything.
// Failures are *ToolError values with the same stages as NewTool's, and reach the model the same
// way.
//
// A schema that applies itself to the same value — {"allOf":[{"$ref":"#"}]}, or a cycle through
// $defs, $anchor or $id — is refused with a *ValidationError naming the tool and the cycle: no
// validation against it could end. Schemas that refer to themselves through properties or items
// (a tree, a list) are fine. Validating one call's arguments is bounded: before the validator runs,
// the arguments are walked as it would walk them, and arguments whose check would take more than
// about 260,000 validator steps (at most ~0.15 s of one core; typical arguments take a few dozen),
// or nest more than 4096 schema levels deep, are refused unchecked: a *ToolError of stage
// ToolStageArguments that matches ErrSchemaTooCostly, which the model reads like any failed call.
// A schema whose references double its work at every level costs exponential work, so this is
// what such a schema gets. The check is part of the call: ToolLoop.ToolTimeout bounds it with the
// function's run, and ctx ends it.
func NewToolFromSchema(name, description string, schema json.RawMessage, fn func(ctx context.Context, arguments json.RawMessage) (string, error)) (*FuncTool, error) {
	field := "tool " + name
	if !isFunctionName(name) {
		return nil, invalid(field, "name must be 1 to 64 letters, digits, '_' or '-'")
	}
	if fn == nil {
		return nil, invalid(field, "has no function")
	}
	raw := bytes.TrimSpace(schema)
	if len(raw) == 0 {
		raw = []byte(`{"type":"object","properties":{}}`)
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(raw, &object); err != nil || object == nil {
		return nil, invalid(field, "schema must be a JSON object, got %.40s", raw)
	}
	run := func(ctx context.Context, arguments []byte) (any, error) {
		out, err := fn(ctx, arguments)
		if err != nil {
			return nil, &ToolError{Tool: name, Stage: ToolStageRun, Err: err}
		}
		return out, nil
	}
	checked, err := schemacheck.CheckJSON(raw)
	if err != nil {
		return nil, invalid(field, "schema: %v", err)
	}
	def := functionTool(name, description, json.RawMessage(slices.Clone(raw)))
	return &FuncTool{def: def, schema: checked, run: run}, nil
}

// ToolStage says where a tool call failed.
type ToolStage string

// The stages at which a tool call can fail.
const (
	ToolStageArguments ToolStage = "arguments" // not JSON, or not what the schema allows
	ToolStageRun       ToolStage = "run"       // the function returned an error
	ToolStagePanic     ToolStage = "panic"     // the function panicked (or called runtime.Goexit); it was recovered
	ToolStageNotFound  ToolStage = "not_found" // the model called a tool that does not exist
	ToolStageRefused   ToolStage = "refused"   // ToolLoop.Approve refused the call, which did not run
	ToolStageTimeout   ToolStage = "timeout"   // the call outlived ToolLoop.ToolTimeout
)

// ToolError is a failed tool call. Its Error text is for logs and programs; Feedback is the short,
// plain text the tool loop sends to the model as the call's result, so that it can correct itself.
type ToolError struct {
	Tool  string    // the name of the tool the model called
	Stage ToolStage // where the call failed: ToolStageArguments, ToolStageRun, …
	Err   error     // the cause, when there is one: the function's error, the schema's, …; may be nil
	// Available names the tools that exist, for ToolStageNotFound.
	Available []string

	feedback string // for ToolStageArguments and ToolStageTimeout: what went wrong, in words a model acts on
}

// Error says which tool failed, at which stage and why, with the underlying error's own words.
func (e *ToolError) Error() string {
	switch e.Stage {
	case ToolStageArguments:
		return sprintf("infergate: tool %s: invalid arguments: %v", e.Tool, e.Err)
	case ToolStagePanic:
		return sprintf("infergate: tool %s panicked: %v", e.Tool, e.Err)
	case ToolStageNotFound:
		return sprintf("infergate: the model called an unknown tool %q", e.Tool)
	case ToolStageRefused:
		return sprintf("infergate: tool %s: call refused: %v", e.Tool, e.Err)
	case ToolStageTimeout:
		return sprintf("infergate: tool %s timed out: %v", e.Tool, e.Err)
	}
	return sprintf("infergate: tool %s failed: %v", e.Tool, e.Err)
}

// Unwrap returns the underlying error.
func (e *ToolError) Unwrap() error { return e.Err }

// Feedback is what the model reads as the failed call's result: for example
// `Invalid arguments for get_weather: "city" is required.`, `get_weather failed: <the error>` or
// `There is no tool named "x". Available tools: a, b.` A refused call's feedback is the text of
// the error Approve returned, as it is.
func (e *ToolError) Feedback() string {
	switch e.Stage {
	case ToolStageArguments:
		if e.feedback == "" {
			return "Invalid arguments for " + e.Tool + ": they do not match the tool's schema."
		}
		return "Invalid arguments for " + e.Tool + ": " + e.feedback
	case ToolStageNotFound:
		if len(e.Available) == 0 {
			return fmt.Sprintf("There is no tool named %q, and no tools are available.", e.Tool)
		}
		return fmt.Sprintf("There is no tool named %q. Available tools: %s.", e.Tool, strings.Join(e.Available, ", "))
	case ToolStagePanic:
		return e.Tool + " failed: the tool crashed: " + errorText(e.Err)
	case ToolStageTimeout:
		if e.feedback == "" {
			return e.Tool + " failed: it took too long."
		}
		return e.Tool + " failed: " + e.feedback
	case ToolStageRefused:
		if e.Err == nil || e.Err.Error() == "" {
			return "The call of " + e.Tool + " was refused."
		}
		return e.Err.Error()
	}
	return e.Tool + " failed: " + errorText(e.Err)
}

func errorText(err error) string {
	if err == nil {
		return "no reason given"
	}
	return err.Error()
}
