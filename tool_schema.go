package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	schemacheck "github.com/infergate/infergate-go/internal/schema"
)

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
	if !functionName.MatchString(name) {
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
