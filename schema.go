package infergate

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/infergate/infergate-go/internal/schema"
)

// ErrSchemaTooCostly matches the error of a value that was not checked against its schema because
// checking it would take more work than validation is allowed (see NewToolFromSchema): a tool
// call's *ToolError of stage ToolStageArguments, or a GenerateObject answer's failure.
var ErrSchemaTooCostly = schema.ErrTooCostly

// SchemaFor returns the JSON Schema of T's JSON form: the schema NewTool derives for a tool's
// arguments and GenerateObject for the value it asks for, with the same tag rules (see NewTool):
// `json` tags name properties, `jsonschema:"..."` tags describe them, fields with omitempty or
// omitzero and pointers are optional, `enum:"a,b"` lists a string's allowed values. T can be any
// type google/jsonschema-go supports, not only a struct.
//
// The schema describes the JSON encoding/json writes and reads for T, also where that is not
// T's structure. A type with a method JSONSchema() json.RawMessage gets the schema it returns
// (Decimal: a string of decimal digits). A type that encodes itself, with a MarshalJSON or
// MarshalText method, gets the schema of what its zero value writes: its JSON type, and for a
// string the format its text has, so that time.Time is a string of format date-time; a type that
// writes null for its zero value, or fails to, allows any value. A type that only reads itself
// from text (UnmarshalText) is a string; a []byte is a base64 string; a ",string" field is a string.
//
// The schema is JSON, as NewToolFromSchema takes it and a request sends it; it is derived once
// per type.
func SchemaFor[T any]() (json.RawMessage, error) {
	ts := schemaOf(reflect.TypeFor[T]())
	if ts.err != nil {
		return nil, ts.err
	}
	return json.Marshal(ts.schema)
}

// typeSchema is what one Go type's schema gives objects and tools, derived once.
type typeSchema struct {
	schema *jsonschema.Schema // shared: never handed out, never changed
	err    error

	// For objects, made on first use: the schema to send (the strict form when there is one) as
	// JSON, and the resolved schema that checks answers: it lets optional properties be null, as
	// the strict form does, but does not require them, which a server that ignores strict
	// would leave out. The value as a call's arguments, which must be an object, has its own:
	// the same when the value is an object, else those of the envelope {"value": ...} (wrapped).
	once     sync.Once
	sent     json.RawMessage
	strict   bool
	resolved *schema.Checked
	call     objectSchema
	wrapped  bool
	sendErr  error
}

// objectSchema is a schema in the forms an object request sends and checks.
type objectSchema struct {
	sent     json.RawMessage
	strict   bool
	resolved *schema.Checked
}

// envelopeKey names the one property of the envelope that carries a value a call's arguments,
// an object, cannot be.
const envelopeKey = "value"

var schemaCache sync.Map // reflect.Type -> *typeSchema

func schemaOf(t reflect.Type) *typeSchema {
	if ts, ok := schemaCache.Load(t); ok {
		return ts.(*typeSchema)
	}
	ts := &typeSchema{}
	own := map[reflect.Type]*jsonschema.Schema{}
	schema.OwnSchemas(t, own, map[reflect.Type]bool{})
	ts.schema, ts.err = jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: own})
	if ts.err == nil {
		ts.err = refine(t, ts.schema, own)
	}
	actual, _ := schemaCache.LoadOrStore(t, ts)
	return actual.(*typeSchema)
}

// clone returns a copy of the schema the caller may change.
func (ts *typeSchema) clone() (*jsonschema.Schema, error) {
	if ts.err != nil {
		return nil, ts.err
	}
	return ts.schema.CloneSchemas(), nil
}

// forObjects prepares the schemas an object request sends and checks answers with.
func (ts *typeSchema) forObjects() error {
	ts.once.Do(func() {
		if ts.err != nil {
			ts.sendErr = ts.err
			return
		}
		value, err := newObjectSchema(ts.schema)
		if err != nil {
			ts.sendErr = err
			return
		}
		ts.sent, ts.strict, ts.resolved = value.sent, value.strict, value.resolved
		ts.call, ts.wrapped = value, !isObject(ts.schema)
		if ts.wrapped {
			envelope := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{envelopeKey: ts.schema},
				Required: []string{envelopeKey}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
			ts.call, ts.sendErr = newObjectSchema(envelope)
		}
	})
	return ts.sendErr
}

// newObjectSchema makes the forms of s: strict to send when it can be, nullable to check.
func newObjectSchema(s *jsonschema.Schema) (objectSchema, error) {
	var o objectSchema
	send, check := s.CloneSchemas(), s.CloneSchemas()
	o.strict = makeStrict(send, true)
	if !o.strict {
		send = s
	}
	makeStrict(check, false)
	var err error
	if o.sent, err = json.Marshal(send); err != nil {
		return o, err
	}
	o.resolved, err = schema.Check(check)
	return o, err
}

// isObject reports whether a schema's value is an object (or null), which a call's arguments can
// be as they are.
func isObject(s *jsonschema.Schema) bool {
	types := schema.TypesOf(s)
	return slices.Contains(types, "object") && !slices.ContainsFunc(types, func(t string) bool { return t != "object" && t != "null" })
}

// makeStrict rewrites s in place into the form servers that enforce schemas ("strict": true)
// accept: every object lists all its properties in required (when requireAll), forbids others,
// and lets the optional ones be null (which decodes as the field's zero value, as leaving it out
// would). It reports false when s has a part strict servers cannot express: a map (an object
// whose property names are not known) or a value of any type.
func makeStrict(s *jsonschema.Schema, requireAll bool) bool {
	if s == nil {
		return true
	}
	if s.Type == "" && len(s.Types) == 0 && s.Enum == nil && s.Not == nil {
		return false // an interface: any JSON value
	}
	if s.Type == "object" || slices.Contains(s.Types, "object") {
		if s.AdditionalProperties == nil || s.AdditionalProperties.Not == nil {
			return false
		}
		ok := true
		for _, name := range propertyNames(s) {
			prop := s.Properties[name]
			if !slices.Contains(s.Required, name) {
				nullable(prop)
				if requireAll {
					s.Required = append(s.Required, name)
				}
			}
			ok = makeStrict(prop, requireAll) && ok // on, so that the checking form is complete
		}
		return ok
	}
	return makeStrict(s.Items, requireAll)
}

// propertyNames lists an object's properties in the order they are sent.
func propertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// nullable lets s be null too.
func nullable(s *jsonschema.Schema) {
	switch {
	case s.Type != "":
		s.Types, s.Type = []string{s.Type, "null"}, ""
	case len(s.Types) > 0 && !slices.Contains(s.Types, "null"):
		s.Types = append(s.Types, "null")
	}
	if s.Enum != nil && !slices.Contains(s.Enum, any(nil)) {
		s.Enum = append(s.Enum, nil)
	}
}
