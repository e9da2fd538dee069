package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/infergate/infergate-go/internal/schema"
)

// tooCostly is what the model reads about arguments not checked because checking them would take
// too much work.
const tooCostly = "they could not be checked: checking them against the tool's schema takes too much work. " +
	"Send smaller, less nested arguments, or do without this tool."

// FuncTool is a Go function the model can call. Its arguments' JSON Schema comes from the Go type
// of its input (NewTool) or is given as JSON (NewToolFromSchema), and a call's arguments are
// checked against that schema before the function runs.
// Hand it to ChatService.RunTools, or put Definition() in ChatRequest.Tools and run your own loop
// with Call. A FuncTool is safe for concurrent use if its function is.
type FuncTool struct {
	def    Tool
	schema *schema.Checked // nil: the arguments are not checked
	run    func(ctx context.Context, arguments []byte) (any, error)
}

// NewTool turns fn into a tool named name. The schema of its arguments is derived from In, which
// must be a struct (or struct{} for a tool without arguments):
//
//   - property names come from `json` tags, and descriptions from `jsonschema:"..."` tags;
//   - a field is optional when its json tag has omitempty or omitzero, or when it is a pointer;
//     every other field is required, and properties the struct does not name are refused;
//   - `enum:"celsius,fahrenheit"` on a string field (or a slice of strings) lists its allowed
//     values; on any other field it is refused;
//   - nested structs, slices and maps with string keys work;
//   - a ",string" field (`json:"n,string"`) is a string holding the number or boolean, as
//     encoding/json reads and writes it;
//   - a type that encodes itself (a json.Marshaler or encoding.TextMarshaler, such as time.Time or
//     Decimal) is described by what it writes, see SchemaFor.
//
// The result is sent to the model as text: a string as it is, anything else as JSON. An error from
// fn, arguments that do not match the schema, and a panic inside fn are all sent to the model as
// the tool's result, so that it can correct itself; none of them stops the loop. Checking the
// arguments has the work bound NewToolFromSchema describes: arguments too large to check are
// refused with an error matching ErrSchemaTooCostly.
func NewTool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) (*FuncTool, error) {
	field := "tool " + name
	if !isFunctionName(name) {
		return nil, invalid(field, "name must be 1 to 64 letters, digits, '_' or '-'")
	}
	if fn == nil {
		return nil, invalid(field, "has no function")
	}
	derived, err := schemaFor(reflect.TypeFor[In]())
	if err != nil {
		return nil, invalid(field, "%v", err)
	}
	resolved, err := schema.Check(derived)
	if err != nil {
		return nil, invalid(field, "schema: %v", err)
	}
	// The definition carries the schema as JSON: a caller changing Definition()'s parameters must
	// not reach the schema the arguments are checked against.
	sent, err := json.Marshal(derived)
	if err != nil {
		return nil, invalid(field, "schema: %v", err)
	}
	run := func(ctx context.Context, arguments []byte) (any, error) {
		var in In
		if err := json.Unmarshal(arguments, &in); err != nil {
			return nil, &ToolError{Tool: name, Stage: ToolStageArguments, Err: err}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, &ToolError{Tool: name, Stage: ToolStageRun, Err: err}
		}
		return out, nil
	}
	return &FuncTool{def: functionTool(name, description, json.RawMessage(sent)), schema: resolved, run: run}, nil
}

// Name returns the tool's name, as the model calls it.
func (t *FuncTool) Name() string { return t.def.Function.Name }

// Definition returns the tool as a ChatRequest sends it, with its JSON Schema as JSON
// (json.RawMessage). The schema is the caller's own copy: changing it changes neither the tool
// nor what its arguments are checked against.
func (t *FuncTool) Definition() Tool {
	def := t.def
	if raw, ok := def.Function.Parameters.(json.RawMessage); ok {
		def.Function.Parameters = slices.Clone(raw)
	}
	return def
}

// Call runs the tool on the arguments a model sent (a JSON object as text; empty means {}) and
// returns the text to send back as the tool's result. The error is a *ToolError that says whether
// the arguments were refused, the function failed, or it panicked; its Feedback is the text to
// send back instead. ctx bounds checking the arguments too. Call never panics.
func (t *FuncTool) Call(ctx context.Context, arguments string) (string, error) {
	args, err := t.check(ctx, arguments)
	if err != nil {
		return "", err
	}
	return t.invoke(ctx, args)
}

// check parses a call's arguments and validates them against the tool's schema, if it has one.
func (t *FuncTool) check(ctx context.Context, arguments string) ([]byte, error) {
	args := bytes.TrimSpace([]byte(arguments))
	if len(args) == 0 {
		args = []byte("{}")
	}
	if t.schema != nil && t.schema.ProvenValid(ctx, args) {
		return args, nil
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return nil, &ToolError{Tool: t.Name(), Stage: ToolStageArguments, Err: fmt.Errorf("not valid JSON: %w", err),
			feedback: "they are not valid JSON."}
	}
	if t.schema == nil {
		return args, nil
	}
	switch err := t.schema.Validate(ctx, instance); {
	case err == nil:
		return args, nil
	case errors.Is(err, ErrSchemaTooCostly):
		return nil, &ToolError{Tool: t.Name(), Stage: ToolStageArguments, Err: err, feedback: tooCostly}
	case ctx.Err() != nil && err == context.Cause(ctx):
		return nil, &ToolError{Tool: t.Name(), Stage: ToolStageRun, Err: err}
	default:
		return nil, &ToolError{Tool: t.Name(), Stage: ToolStageArguments, Err: err, feedback: schema.Explain(t.schema.Schema(), instance, "the arguments", err)}
	}
}

// invoke runs the tool's function on checked arguments.
func (t *FuncTool) invoke(ctx context.Context, args []byte) (result string, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = "", &ToolError{Tool: t.Name(), Stage: ToolStagePanic, Err: fmt.Errorf("%v", p)}
		}
	}()
	out, err := t.run(ctx, args)
	if err != nil {
		return "", err
	}
	if s, ok := out.(string); ok {
		return s, nil
	}
	text, err := json.Marshal(out)
	if err != nil {
		return "", &ToolError{Tool: t.Name(), Stage: ToolStageRun, Err: fmt.Errorf("encoding the result: %w", err)}
	}
	return string(text), nil
}

// schemaFor returns a tool's argument schema, derived from its input type as SchemaFor does.
func schemaFor(t reflect.Type) (*jsonschema.Schema, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("arguments type %s must be a struct: tools take a JSON object", t)
	}
	return schemaOf(t).clone()
}

// refine applies to a schema jsonschema-go derived what it does not infer: pointers are optional,
// `enum` tags list allowed values, and ",string" fields are strings. It walks the type beside its
// schema, and leaves alone the types that have a schema of their own (own, see schema.OwnSchema).
func refine(t reflect.Type, s *jsonschema.Schema, own map[reflect.Type]*jsonschema.Schema) error {
	t = deref(t)
	if _, ok := own[t]; ok || s == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return refine(t.Elem(), s.Items, own)
	case reflect.Map:
		return refine(t.Elem(), s.AdditionalProperties, own)
	case reflect.Struct:
		return refineStruct(t, s, own)
	}
	return nil
}

func refineStruct(t reflect.Type, s *jsonschema.Schema, own map[reflect.Type]*jsonschema.Schema) error {
	for _, f := range reflect.VisibleFields(t) {
		name, ok := jsonName(f)
		prop := s.Properties[name]
		if !ok || prop == nil {
			continue
		}
		if f.Type.Kind() == reflect.Pointer {
			s.Required = removeString(s.Required, name)
		}
		quoted, isQuoted := schema.QuotedSchema(f, own)
		if isQuoted {
			quoted.Description = prop.Description
			*prop = *quoted
		}
		if tag, ok := f.Tag.Lookup("enum"); ok {
			if err := addEnum(f, prop, tag, isQuoted); err != nil {
				return err
			}
		}
		if err := refine(f.Type, prop, own); err != nil {
			return err
		}
	}
	return nil
}

// addEnum lists a string field's allowed values (each element's, for a slice). A nullable field
// (a pointer) also allows null, which its type admits and a model sends for "not given".
func addEnum(f reflect.StructField, prop *jsonschema.Schema, tag string, quoted bool) error {
	t, target := f.Type, prop
	if k := deref(t).Kind(); (k == reflect.Slice || k == reflect.Array) && prop.Items != nil {
		t, target = deref(t).Elem(), prop.Items
	}
	if deref(t).Kind() != reflect.String {
		return fmt.Errorf("field %s: an enum tag needs a string field, not %s", f.Name, t)
	}
	for _, v := range strings.Split(tag, ",") {
		if quoted { // ",string": the string holds the value's JSON
			v = schema.JSONText(v)
		}
		target.Enum = append(target.Enum, v)
	}
	if slices.Contains(target.Types, "null") || target.Type == "null" {
		target.Enum = append(target.Enum, nil)
	}
	return nil
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonName is the property name encoding/json gives a struct field; ok is false for fields it
// leaves out.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() || f.Anonymous {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return name, true
}

func removeString(list []string, s string) []string {
	out := list[:0]
	for _, v := range list {
		if v != s {
			out = append(out, v)
		}
	}
	return out
}
