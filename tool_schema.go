package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// NewToolFromSchema makes a tool whose arguments' JSON Schema is given as JSON rather than derived
// from a Go type: a schema written by hand, loaded from a file, or announced by another system
// (an MCP server, say). The schema must be a JSON object (empty means a tool without arguments);
// it is sent to the model as it is. fn receives the arguments the model sent, as a JSON value.
//
// Arguments are validated against the schema before fn runs when the validator
// (github.com/google/jsonschema-go, JSON Schema draft 2020-12 and draft-07) can resolve it. A
// schema it cannot resolve — a $ref to another document, a $dynamicRef without its anchor, another
// $schema version — is still sent to the model, and the tool then validates nothing but that the
// arguments are JSON: fn must expect anything. Failures are *ToolError values with the same stages
// as NewTool's, and reach the model the same way.
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
	def := functionTool(name, description, json.RawMessage(slices.Clone(raw)))
	return &FuncTool{def: def, schema: resolveRawSchema(raw), run: run}, nil
}

// resolveRawSchema prepares a schema for validation, or returns nil when the validator cannot
// apply it (the tool then validates nothing).
func resolveRawSchema(raw []byte) (resolved *jsonschema.Resolved) {
	defer func() {
		if recover() != nil {
			resolved = nil
		}
	}()
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil || !supportedDraft(schema.Schema) {
		return nil
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil
	}
	return resolved
}

// supportedDraft reports whether the validator checks instances against a schema declaring this
// $schema; for any other it refuses every instance.
func supportedDraft(version string) bool {
	switch version {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema":
		return true
	}
	return false
}
