package infergate

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

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
