package infergate

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/infergate/infergate-go/internal/jsonscan"
	"github.com/infergate/infergate-go/internal/jsonwrite"
)

// RawFields are fields of a JSON object that the SDK does not model, each value kept as the JSON
// text it came as. Vendors put fields on an answer's message and tool calls that they need back on
// the next turn: Gemini's OpenAI-compatible endpoint sends "extra_content" with each tool call's
// thought signature and refuses the next turn without it, OpenRouter sends "reasoning_details".
// Message.Extra and ToolCall.Extra keep them, and a message sent in a later request sends them back
// as they came. A field sent as null is left out.
//
// The values are JSON text rather than decoded Go values so that they go back to the byte: a
// signature, a number beyond float64 or the order of an object's keys survive. Read one with
// json.Unmarshal; set one with json.Marshal.
type RawFields map[string]json.RawMessage

// MarshalJSON writes the fields as one JSON object, in key order, each value as it is (nil as
// null). A value that is not valid JSON is an error.
func (f RawFields) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	return withFields([]byte("{}"), f)
}

// UnmarshalJSON reads a JSON object, or null, keeping each value's text as it is; a key sent twice
// keeps its last value, and a key whose value is null is left out.
func (f *RawFields) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*f = nil
		return nil
	}
	if err := json.Unmarshal(b, new(json.RawMessage)); err != nil {
		return err // not JSON: the syntax error, with its offset
	}
	if b[0] != '{' {
		kind := map[byte]string{'"': "string", '[': "array", 't': "bool", 'f': "bool"}[b[0]]
		if kind == "" {
			kind = "number"
		}
		return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[RawFields]()}
	}
	*f = unmodelled(b, nil)
	return nil
}

// check refuses a value that is not valid JSON, which would break the object it goes into.
func (f RawFields) check() error {
	for _, k := range slices.Sorted(maps.Keys(f)) {
		if !json.Valid(f[k]) {
			return invalid("Extra["+strconv.Quote(k)+"]", "is not valid JSON")
		}
	}
	return nil
}

// validate refuses what cannot be sent: an empty key, a key that names a field of the type (it
// would be sent twice, and a server reading keys without regard to case or '_' would take either),
// and a value that is not JSON. prefix names the value Extra belongs to, with a trailing dot.
func (f RawFields) validate(prefix string, modelled []string) error {
	if len(f) == 0 {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(f)) {
		name := prefix + "Extra[" + strconv.Quote(k) + "]"
		switch {
		case k == "":
			return invalid(prefix+"Extra", "a key is empty")
		case modelledKey(k, modelled):
			return invalid(name, "names a field this type models: set that field")
		case !json.Valid(f[k]):
			return invalid(name, "is not valid JSON")
		}
	}
	return nil
}

// The keys that the SDK's types model, which are never in an Extra: those of a message (which a
// stream's delta shares: its fields become the message's), and those of a tool call (whose "index"
// is its place in the list).
var (
	messageKeys  = []string{"role", "content", "name", "tool_calls", "tool_call_id", "refusal", "reasoning_content", "reasoning"}
	toolCallKeys = []string{"id", "type", "function", "index"}
)

// modelledKey reports whether key names one of names as a lenient decoder reads keys: without
// regard to case, and to '_' and '-', as encoding/json does in some versions. Such a key is never
// one of an object's raw fields, whichever decoder read the object.
func modelledKey(key string, names []string) bool {
	for _, name := range names {
		if sameName(key, name) {
			return true
		}
	}
	return false
}

func sameName(a, b string) bool {
	for {
		a, b = strings.TrimLeft(a, "_-"), strings.TrimLeft(b, "_-")
		if a == "" || b == "" {
			return a == b
		}
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if !sameRune(ra, rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
}

// sameRune reports whether r and t are one letter under Unicode's simple case folding, as
// strings.EqualFold compares them.
func sameRune(r, t rune) bool {
	if r == t {
		return true
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == t {
			return true
		}
	}
	return false
}

// unmodelled returns the fields of the JSON object b whose keys are not among modelled, each value
// its own copy; nil when there are none (or b is not an object). b has been read by encoding/json
// already, so it is valid: jsonscan reads it in one pass, and encoding/json's decoder what jsonscan
// declines.
func unmodelled(b []byte, modelled []string) RawFields {
	var out RawFields
	add := func(key string, value []byte) {
		if !modelledKey(key, modelled) {
			out = out.with(key, value)
		}
	}
	if !jsonscan.Fields(b, func(key, value []byte) { add(string(key), value) }) {
		out = nil
		eachField(b, add)
	}
	return out
}

// eachField calls fn with each key of the JSON object b and the text of its value, as
// encoding/json's decoder reads them; it stops at what it cannot read, and reports whether it read
// the whole object.
func eachField(b []byte, fn func(key string, value []byte)) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		var value json.RawMessage
		if err != nil || !ok || dec.Decode(&value) != nil {
			return false
		}
		fn(key, value)
	}
	tok, err := dec.Token()
	return err == nil && tok == json.Delim('}')
}

// fieldsOf copies the fields jsonscan handed over, leaving out those whose keys are among modelled.
func fieldsOf(list []jsonscan.Field, modelled []string) RawFields {
	var out RawFields
	for _, f := range list {
		if key := string(f.Key); !modelledKey(key, modelled) {
			out = out.with(key, f.Value)
		}
	}
	return out
}

// with sets key to a copy of value, or removes it when value is null, as a later key of a JSON
// object overrides an earlier one; it makes the map on the first field.
func (f RawFields) with(key string, value []byte) RawFields {
	if string(bytes.TrimSpace(value)) == "null" {
		delete(f, key)
		return f
	}
	if f == nil {
		f = RawFields{}
	}
	f[key] = bytes.Clone(value)
	return f
}

// clone copies the map, so that a message handed out does not share it; the values, which are
// never changed in place, are shared.
func (f RawFields) clone() RawFields {
	if f == nil {
		return nil
	}
	return maps.Clone(f)
}

// appendFields appends ,"key":value for each field, in key order, each value as it is.
func appendFields(b []byte, f RawFields) []byte {
	if len(f) == 0 {
		return b
	}
	for _, k := range slices.Sorted(maps.Keys(f)) {
		b = append(b, ',')
		b = jsonwrite.String(b, k)
		b = append(b, ':')
		b = append(b, f[k]...)
	}
	return b
}

// fieldsSize is about what appendFields appends.
func fieldsSize(f RawFields) int {
	n := 0
	for k, v := range f {
		n += len(k) + len(v) + 4
	}
	return n
}

// closeObject drops the comma appendFields put after an object's opening brace, where no field
// came before.
func closeObject(b []byte) []byte {
	if len(b) > 1 && b[0] == '{' && b[1] == ',' {
		return append(b[:1], b[2:]...)
	}
	return b
}

// withFields returns the JSON object obj with the fields after its own; a value that is not valid
// JSON is an error.
func withFields(obj []byte, f RawFields) ([]byte, error) {
	if len(f) == 0 {
		return obj, nil
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	obj = bytes.TrimSpace(obj)
	inner := bytes.TrimSpace(obj[1 : len(obj)-1])
	out := appendFields(append([]byte{'{'}, inner...), f)
	if len(inner) == 0 {
		out = closeObject(out)
	}
	return append(out, '}'), nil
}

// In a stream, a field the SDK does not model may come in fragments, one per chunk, as the
// content does. The fragments of one field merge as the stream's own fields do: strings are
// joined, lists appended, objects merged key by key (each key's fragments merged the same way);
// of anything else, or of fragments of different kinds, the last stands. A field that came whole
// keeps its text to the byte; a merged one keeps the text of every value that came whole in it.

// fieldFold gathers the fragments of one delta's or tool call's fields, in the order they came.
type fieldFold map[string][]json.RawMessage

// add keeps a fragment's fields, making the fold on the first.
func (f fieldFold) add(fields RawFields) fieldFold {
	if f == nil {
		f = fieldFold{}
	}
	for k, v := range fields {
		f[k] = append(f[k], v)
	}
	return f
}

// fields merges what came so far; nil when nothing did.
func (f fieldFold) fields() RawFields {
	if len(f) == 0 {
		return nil
	}
	out := make(RawFields, len(f))
	for k, parts := range f {
		out[k] = mergeValues(parts)
	}
	return out
}

// mergeValues merges the fragments of one value, in order. Fragments that are not JSON (a caller's
// own chunks may hold anything) are not merged: the last stands.
func mergeValues(parts []json.RawMessage) json.RawMessage {
	last := parts[len(parts)-1]
	if len(parts) == 1 {
		return last
	}
	kind := kindOf(last)
	for _, p := range parts {
		if kindOf(p) != kind || !json.Valid(p) {
			return last
		}
	}
	switch kind {
	case '"':
		return joinValues(parts, '"', '"', "")
	case '[':
		return joinValues(parts, '[', ']', ",")
	case '{':
		if merged, ok := mergeObjects(parts); ok {
			return merged
		}
	}
	return last
}

// kindOf is the first byte of a JSON value: its kind, a quote for a string.
func kindOf(v json.RawMessage) byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// joinValues joins the insides of strings or lists, each between its open and close byte, with sep
// between those that are not empty. The inside of a JSON string is whole escapes and characters, so
// joined insides are the joined string.
func joinValues(parts []json.RawMessage, open, close byte, sep string) json.RawMessage {
	out := []byte{open}
	empty := true
	for _, p := range parts {
		p = bytes.TrimSpace(p)
		inner := p[1 : len(p)-1]
		if sep != "" {
			if inner = bytes.TrimSpace(inner); len(inner) == 0 {
				continue
			}
			if !empty {
				out = append(out, sep...)
			}
		}
		out, empty = append(out, inner...), false
	}
	return append(out, close)
}

// mergeObjects merges objects key by key, keys in the order they first came (a key twice in one
// object is that object's last value, as JSON reads it); false when one cannot be read.
func mergeObjects(parts []json.RawMessage) (json.RawMessage, bool) {
	var order []string
	values := map[string][]json.RawMessage{}
	for _, p := range parts {
		first := map[string]int{} // where each key of this object went in values
		ok := eachField(p, func(key string, value []byte) {
			if i, twice := first[key]; twice {
				values[key][i] = value
				return
			}
			if _, seen := values[key]; !seen {
				order = append(order, key)
			}
			first[key] = len(values[key])
			values[key] = append(values[key], value)
		})
		if !ok {
			return nil, false
		}
	}
	out := []byte{'{'}
	for i, k := range order {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonwrite.String(out, k)
		out = append(out, ':')
		out = append(out, mergeValues(values[k])...)
	}
	return append(out, '}'), true
}

// Extra fields are the escape hatch for what a request type does not model: response_format, seed,
// user, parallel_tool_calls, reasoning_effort, logprobs, provider knobs such as top_k. They are
// merged into the request's top-level JSON. A key the type models is refused rather than sent twice.

// checkExtra refuses keys the request models and values that cannot be encoded.
func checkExtra(extra map[string]any, wire reflect.Type) error {
	if len(extra) == 0 {
		return nil
	}
	modelled := jsonKeys(wire)
	for k, v := range extra {
		if k == "" {
			return invalid("Extra", "a key is empty")
		}
		if modelled[k] {
			return invalid("Extra", "%q is a field of the request: set it there", k)
		}
		if _, err := json.Marshal(v); err != nil {
			return invalid("Extra["+k+"]", "cannot be encoded as JSON: %v", err)
		}
	}
	return nil
}

// mergeExtra adds the extra fields, in key order, to an encoded JSON object.
func mergeExtra(body []byte, extra map[string]any) ([]byte, error) {
	if len(extra) == 0 {
		return body, nil
	}
	body = bytes.TrimRight(body, " \n")
	out := bytes.NewBuffer(make([]byte, 0, len(body)+64*len(extra)))
	out.Write(body[:len(body)-1])
	sep := len(bytes.TrimSpace(body[1:len(body)-1])) > 0
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		key, _ := json.Marshal(k)
		value, err := json.Marshal(extra[k])
		if err != nil {
			return nil, invalid("Extra["+k+"]", "cannot be encoded as JSON: %v", err)
		}
		if sep {
			out.WriteByte(',')
		}
		sep = true
		out.Write(key)
		out.WriteByte(':')
		out.Write(value)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

var keyCache sync.Map // reflect.Type -> map[string]bool

// jsonKeys returns the top-level JSON keys a struct type encodes, embedded structs included.
func jsonKeys(t reflect.Type) map[string]bool {
	if keys, ok := keyCache.Load(t); ok {
		return keys.(map[string]bool)
	}
	keys := map[string]bool{}
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case !f.IsExported() || name == "-" || (f.Anonymous && name == ""):
		case name != "":
			keys[name] = true
		default:
			keys[f.Name] = true
		}
	}
	keyCache.Store(t, keys)
	return keys
}
