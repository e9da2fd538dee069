package typed

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/infergate/infergate-go/internal/schema"
)

// Decode decodes an answer's JSON into *v exactly as json.Unmarshal does. Types made of
// plain parts (structs with named fields, slices, arrays, maps with string keys, pointers,
// strings, numbers, bools) are decoded in one pass over the text from a plan cached per type;
// any part that decodes itself (Unmarshaler, TextUnmarshaler, interfaces, []byte, ...) is handed
// to json.Unmarshal on its own text. Whatever the pass is not sure to decode as encoding/json
// would (an escape it does not expect, invalid UTF-8, a key that is not a field's exact name, a
// key met twice, a number that does not fit, a syntax error) starts over with json.Unmarshal on
// the whole text, so the value and the error are always encoding/json's on the running toolchain.
// Strings are cut from one copy of the text, and the few with escapes from one buffer, to save
// an allocation each: a string kept keeps that copy in memory. So do slices and pointers, which
// are cut from blocks shared by the values of their type.
func Decode[T any](raw []byte, v *T) error {
	if DecodePlain(string(raw), v, nil) {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// DecodeProven decodes text into *v, as Decode would, and proves it valid against checked in
// the same pass (as checked.ProvenValid would). It reports false, with *v zero, when it cannot do
// both: the caller then validates and decodes as it would without it. Strings are cut from text.
func DecodeProven[T any](text string, v *T, checked *schema.Checked) bool {
	return checked.Quick != nil && DecodePlain(text, v, checked.Quick)
}

type plainKind uint8

const (
	pkOther plainKind = iota // json.Unmarshal decodes it from its own text
	pkString
	pkBool
	pkInt
	pkUint
	pkFloat
	pkStruct
	pkSlice
	pkArray
	pkMap
	pkPointer
)

// plainPlan is how a type's values are decoded, and in a plan that also checks a schema, what the
// schema says of the values at its place.
type plainPlan struct {
	kind   plainKind
	t      reflect.Type
	size   uintptr    // of a value
	elem   *plainPlan // pkSlice, pkArray, pkMap, pkPointer
	fields []plainField
	node   *schema.Node // the schema here; nil for any value (or when not checking)
	// id indexes the decoder's allocator of this plan's slices or pointees (pkSlice, pkPointer);
	// allocs, at the root, is the number of them.
	id, allocs int
	block      reflect.Type  // pkSlice, pkPointer: []elem, which blocks of elements are made as
	empty      reflect.Value // pkSlice: an empty slice, not nil
	scratch    sync.Pool     // pkSlice: *scratchBlock, zero, for slices that outgrow their block
	// spilled is the length of the last slice read in scratch memory, which a new scratch block is
	// made for when the pool has none (the collector empties it).
	spilled atomic.Int64
}

type plainField struct {
	name   string
	key    string // `"name":`
	offset uintptr
	index  int    // in the struct, for reflect
	bit    uint64 // marks the field as met in its object
	plan   *plainPlan
	// In a checking plan: whether the schema admits the property, and its bit among the
	// schema's properties (0 for one it does not name).
	refused bool
	prop    uint64
}

// plainKey names a plan: a type, and the schema at its place in a checking plan.
type plainKey struct {
	t reflect.Type
	q *schema.QuickSchema
}

var plainPlans sync.Map // plainKey -> *plainPlan

func plainPlanOf(t reflect.Type, q *schema.QuickSchema) *plainPlan {
	key := plainKey{t, q}
	if p, ok := plainPlans.Load(key); ok {
		return p.(*plainPlan)
	}
	b := planBuilder{building: map[nodeKey]*plainPlan{}, check: q != nil}
	var root *schema.Node
	if q != nil {
		root = q.Root
	}
	p := b.plan(t, root)
	p.allocs = b.allocs
	actual, _ := plainPlans.LoadOrStore(key, p)
	return actual.(*plainPlan)
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerT    = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesOnItsOwn reports whether encoding/json decodes t by a method or a rule of its own: a
// json.Number holds a number's text, and Go 1.27's encoding/json knows time.Duration.
func decodesOnItsOwn(t reflect.Type) bool {
	if t == reflect.TypeFor[json.Number]() || t == reflect.TypeFor[time.Duration]() {
		return true
	}
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(jsonUnmarshalerType) || u.Implements(textUnmarshalerT) {
			return true
		}
	}
	return false
}

type nodeKey struct {
	t    reflect.Type
	node *schema.Node
}

// planBuilder builds one root's plans; building holds those under construction, for recursive
// types.
type planBuilder struct {
	building map[nodeKey]*plainPlan
	check    bool
	allocs   int
}

// plan plans t, at a place whose schema is node.
func (b *planBuilder) plan(t reflect.Type, node *schema.Node) *plainPlan {
	key := nodeKey{t, node}
	if p := b.building[key]; p != nil {
		return p
	}
	p := &plainPlan{t: t, size: t.Size(), node: node}
	b.building[key] = p
	if decodesOnItsOwn(t) {
		return p
	}
	var items, extra *schema.Node
	if node != nil {
		items, extra = node.Items, node.Extra
	}
	switch t.Kind() {
	case reflect.String:
		p.kind = pkString
	case reflect.Bool:
		p.kind = pkBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = pkInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = pkUint
	case reflect.Float32, reflect.Float64:
		p.kind = pkFloat
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 { // []byte is base64 text
			p.kind, p.elem, p.block = pkSlice, b.plan(t.Elem(), items), t
			p.empty = reflect.MakeSlice(t, 0, 0)
			p.id, b.allocs = b.allocs, b.allocs+1
		}
	case reflect.Array:
		p.kind, p.elem = pkArray, b.plan(t.Elem(), items)
	case reflect.Map:
		// A schema that names properties of a map holds its values to different schemas.
		if t.Key().Kind() == reflect.String && !decodesOnItsOwn(t.Key()) && (node == nil || len(node.Props) == 0) {
			p.kind, p.elem = pkMap, b.plan(t.Elem(), extra)
		}
	case reflect.Pointer:
		p.kind, p.elem, p.block = pkPointer, b.plan(t.Elem(), node), reflect.SliceOf(t.Elem())
		p.id, b.allocs = b.allocs, b.allocs+1
	case reflect.Struct:
		if fields, ok := b.fields(t, node); ok {
			p.kind, p.fields = pkStruct, fields
		}
	}
	return p
}

// fields plans a struct's fields; ok is false for a struct whose names encoding/json's versions
// could read differently: embedded fields, names that differ only in case, tags with options other
// than omitempty and omitzero or names of unusual characters.
func (b *planBuilder) fields(t reflect.Type, node *schema.Node) ([]plainField, bool) {
	var fields []plainField
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("json")
		if sf.Anonymous || !sf.IsExported() && tagged {
			return nil, false
		}
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for opt := range strings.SplitSeq(opts, ",") {
			if opt != "" && opt != "omitempty" && opt != "omitzero" {
				return nil, false
			}
		}
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) || len(fields) == 64 {
			return nil, false
		}
		for _, other := range fields {
			if strings.EqualFold(other.name, name) {
				return nil, false
			}
		}
		f := plainField{name: name, key: `"` + name + `":`, offset: sf.Offset, index: i, bit: 1 << len(fields)}
		var child *schema.Node
		if node != nil {
			if at, named := node.Props[name]; named {
				child, f.prop = node.Children[at], 1<<at
			} else {
				child, f.refused = node.Extra, node.NoExtra
			}
		}
		f.plan = b.plan(sf.Type, child)
		fields = append(fields, f)
	}
	return fields, true
}

func plainName(name string) bool {
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' && name != "-") {
			return false
		}
	}
	return name != ""
}
