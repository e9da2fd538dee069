package infergate

import (
	"bytes"
	"encoding/json"
)

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
		out = appendString(out, k)
		out = append(out, ':')
		out = append(out, mergeValues(values[k])...)
	}
	return append(out, '}'), true
}
