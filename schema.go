package infergate

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFor returns the JSON Schema of T's JSON form: the schema NewTool derives for a tool's
// arguments and GenerateObject for the value it asks for, with the same tag rules (see NewTool):
// `json` tags name properties, `jsonschema:"..."` tags describe them, fields with omitempty or
// omitzero and pointers are optional, `enum:"a,b"` lists a string's allowed values. T can be any
// type google/jsonschema-go supports, not only a struct.
//
// The schema is derived once per type; each call returns a copy the caller may change.
func SchemaFor[T any]() (*jsonschema.Schema, error) {
	return schemaOf(reflect.TypeFor[T]()).clone()
}

// typeSchema is what one Go type's schema gives objects and tools, derived once.
type typeSchema struct {
	schema *jsonschema.Schema // shared: never handed out, never changed
	err    error

	// For objects, made on first use: the schema to send (the strict form when there is one) as
	// JSON, and the resolved schema that checks answers: it lets optional properties be null, as
	// the strict form does, but does not require them, which a server that ignores strict
	// would leave out.
	once     sync.Once
	sent     json.RawMessage
	strict   bool
	resolved *checkedSchema
	sendErr  error
}

var schemaCache sync.Map // reflect.Type -> *typeSchema

func schemaOf(t reflect.Type) *typeSchema {
	if ts, ok := schemaCache.Load(t); ok {
		return ts.(*typeSchema)
	}
	ts := &typeSchema{}
	ts.schema, ts.err = jsonschema.ForType(t, &jsonschema.ForOptions{})
	if ts.err == nil {
		ts.err = refine(t, ts.schema)
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

// forObjects prepares the schema an object request sends and checks answers with.
func (ts *typeSchema) forObjects() error {
	ts.once.Do(func() {
		if ts.err != nil {
			ts.sendErr = ts.err
			return
		}
		send, check := ts.schema.CloneSchemas(), ts.schema.CloneSchemas()
		ts.strict = makeStrict(send, true)
		if !ts.strict {
			send = ts.schema
		}
		makeStrict(check, false)
		if ts.sent, ts.sendErr = json.Marshal(send); ts.sendErr != nil {
			return
		}
		ts.resolved, ts.sendErr = checkSchema(check)
	})
	return ts.sendErr
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
