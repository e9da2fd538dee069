//go:build purego

package typed

import (
	"reflect"

	"github.com/infergate/infergate-go/internal/schema"
)

// The purego build decodes with the safe twin alone (decode_safe.go); decode_unsafe.go is the
// default build's.

// DecodePlain is the one pass; with q, it also proves the value valid against q's schema. It
// reports false, with *v zero again, where json.Unmarshal (and the validator) have to take over.
func DecodePlain[T any](text string, v *T, q *schema.QuickSchema) bool {
	return decodeSafe(text, reflect.ValueOf(v).Elem(), q)
}

// decodeInto is DecodePlain for a value known by reflect: ptr points at it.
func decodeInto(text string, ptr reflect.Value, q *schema.QuickSchema) bool {
	return decodeSafe(text, ptr.Elem(), q)
}

// blockBase is where a block's elements start, which the safe twin does not need.
type blockBase = struct{}

func baseOf(reflect.Value) blockBase { return blockBase{} }

// viewString returns b's bytes as a string: in the purego build, a copy.
func viewString(b []byte) string { return string(b) }
