package schema

import (
	"encoding"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaDeclarer is a type that declares its own JSON Schema, with a method
// JSONSchema() json.RawMessage (Decimal does): SchemaFor uses it as it is.
type schemaDeclarer interface {
	JSONSchema() json.RawMessage
}

var (
	declarerType        = reflect.TypeFor[schemaDeclarer]()
	marshalerType       = reflect.TypeFor[json.Marshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// OwnSchema returns the schema of a type whose JSON encoding/json does not derive from its fields
// and elements, and false for the others. The rule, in order:
//
//   - a type with a JSONSchema() json.RawMessage method gets the schema it returns (unless it is
//     empty or not a JSON Schema object);
//   - a type that writes itself (json.Marshaler or encoding.TextMarshaler, with a value or a
//     pointer receiver) gets the schema of what its zero value writes: its JSON type, and for a
//     string the format its text has (an RFC 3339 time is a date-time, as time.Time writes);
//     a zero value that writes null or fails says nothing, and any value is allowed;
//   - a type that reads itself from text only (encoding.TextUnmarshaler) is a string;
//   - a json.Number is a number, and a []byte a base64 string (or null, as a nil slice writes), as
//     encoding/json writes them.
//
// t has no pointer at its top.
func OwnSchema(t reflect.Type) (*jsonschema.Schema, bool) {
	if t.Kind() == reflect.Interface {
		return nil, false // any value: jsonschema-go says so already
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(declarerType) {
		if s := declaredSchema(pt); s != nil {
			return s, true
		}
	}
	switch {
	case pt.Implements(marshalerType) || pt.Implements(textMarshalerType):
		return writtenSchema(pt), true
	case pt.Implements(textUnmarshalerType) && !pt.Implements(unmarshalerType):
		return &jsonschema.Schema{Type: "string"}, true
	case t == numberType:
		return &jsonschema.Schema{Type: "number"}, true
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !isSelfEncoded(t.Elem()):
		return &jsonschema.Schema{Types: []string{"null", "string"}, ContentEncoding: "base64"}, true
	}
	return nil, false
}

// isSelfEncoded reports whether a byte type encodes itself, which makes a slice of it an array.
func isSelfEncoded(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(marshalerType) || pt.Implements(textMarshalerType)
}

// declaredSchema calls JSONSchema on a zero value; nil when it returns none, not a schema, or
// panics.
func declaredSchema(pt reflect.Type) (s *jsonschema.Schema) {
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	raw := reflect.New(pt.Elem()).Interface().(schemaDeclarer).JSONSchema()
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return s
}

// writtenSchema is the schema of what encoding/json writes for a zero value of *pt's element.
func writtenSchema(pt reflect.Type) *jsonschema.Schema {
	text, ok := marshalZero(pt)
	if !ok || len(text) == 0 {
		return &jsonschema.Schema{}
	}
	switch text[0] {
	case '"':
		s := &jsonschema.Schema{Type: "string"}
		var str string
		if json.Unmarshal(text, &str) == nil {
			s.Format = formatOf(str)
		}
		return s
	case '{':
		return &jsonschema.Schema{Type: "object"}
	case '[':
		return &jsonschema.Schema{Type: "array"}
	case 't', 'f':
		return &jsonschema.Schema{Type: "boolean"}
	case 'n':
		return &jsonschema.Schema{}
	}
	return &jsonschema.Schema{Type: "number"}
}

// marshalZero writes a zero value as encoding/json does (through a pointer, so that methods with
// a pointer receiver run too); ok is false when it fails or its method panics.
func marshalZero(pt reflect.Type) (text []byte, ok bool) {
	defer func() {
		if recover() != nil {
			text, ok = nil, false
		}
	}()
	text, err := json.Marshal(reflect.New(pt.Elem()).Interface())
	return text, err == nil
}

var uuidText = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// formatOf names the format a written text has: a type whose zero value writes a date-time writes
// date-times.
func formatOf(text string) string {
	if _, err := time.Parse(time.RFC3339Nano, text); err == nil {
		return "date-time"
	}
	if _, err := time.Parse(time.DateOnly, text); err == nil {
		return "date"
	}
	if uuidText.MatchString(text) {
		return "uuid"
	}
	return ""
}

// OwnSchemas finds the types within t (t itself, field, element and map value types, through
// pointers) that have a schema of their own, without looking inside those.
func OwnSchemas(t reflect.Type, found map[reflect.Type]*jsonschema.Schema, seen map[reflect.Type]bool) {
	t = deref(t)
	if seen[t] {
		return
	}
	seen[t] = true
	if s, ok := OwnSchema(t); ok {
		found[t] = s
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if !f.Anonymous && f.IsExported() {
				OwnSchemas(f.Type, found, seen)
			}
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		OwnSchemas(t.Elem(), found, seen)
	}
}

// QuotedSchema is the schema of a field with the ",string" option, which encoding/json writes and
// reads as a JSON string holding the value's JSON; ok is false when the option does not apply to
// the field (encoding/json ignores it on other kinds, and on types that write themselves).
func QuotedSchema(f reflect.StructField, own map[reflect.Type]*jsonschema.Schema) (*jsonschema.Schema, bool) {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if !hasOption(opts, "string") {
		return nil, false
	}
	t, nullable := f.Type, false
	if t.Name() == "" && t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	if _, ok := own[t]; ok {
		return nil, false
	}
	s := &jsonschema.Schema{Type: "string"}
	switch t.Kind() {
	case reflect.Bool:
		s.Enum = []any{"true", "false"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.Pattern = `^-?[0-9]+$`
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.Pattern = `^[0-9]+$`
	case reflect.Float32, reflect.Float64:
		s.Pattern = `^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`
	case reflect.String:
		s.Pattern = `^".*"$`
	default:
		return nil, false
	}
	if nullable {
		s.Types, s.Type = []string{"string", "null"}, ""
		if s.Enum != nil {
			s.Enum = append(s.Enum, nil)
		}
	}
	return s, true
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		if opt == name {
			return true
		}
	}
	return false
}

// deref returns the type a chain of pointers to t ends at.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
