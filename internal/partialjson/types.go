package partialjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"
)

// typeInfo is what the builder asks of a type for each value that begins: worked out once per type,
// so that a value costs no reflection on types (method sets, pointer types, field tags).
type typeInfo struct {
	t       reflect.Type
	kind    reflect.Kind             // of t without its pointers
	decodes bool                     // t without its pointers decodes itself (decodesItself)
	scalar  bool                     // t without its pointers is a scalar
	plan    *structPlan              // of t without its pointers, a struct
	elem    atomic.Pointer[typeInfo] // of its elements, once met (computed late: a type may contain itself)
	// base is t without its pointers, and ptrs the types' of what the pointers of t lead to,
	// outermost first: what deref allocates on the way to base.
	base reflect.Type
	ptrs []*typeInfo
	size uintptr // t's
	// text: a string a value of the type shows as it grows (a string kind that does not decode
	// itself); number: a literal the fast path sets (a bool or number kind that does not decode
	// itself).
	text, number bool
}

var infos sync.Map // reflect.Type -> *typeInfo

func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := infos.Load(t); ok {
		return ti.(*typeInfo)
	}
	base := deref(t)
	ti := &typeInfo{t: t, kind: base.Kind(), decodes: decodesItself(base), scalar: isScalar(base.Kind()), base: base, size: t.Size()}
	for p := t; p.Kind() == reflect.Pointer; p = p.Elem() {
		ti.ptrs = append(ti.ptrs, infoOf(p.Elem()))
	}
	ti.text = ti.kind == reflect.String && !ti.decodes
	ti.number = ti.scalar && ti.kind != reflect.String && !ti.decodes
	if ti.kind == reflect.Struct {
		ti.plan = planOf(base)
	}
	got, _ := infos.LoadOrStore(t, ti)
	return got.(*typeInfo)
}

// elemInfo is the typeInfo of the elements of a slice, array or map of ti's type.
func (ti *typeInfo) elemInfo() *typeInfo {
	if e := ti.elem.Load(); e != nil {
		return e
	}
	e := infoOf(deref(ti.t).Elem())
	ti.elem.Store(e)
	return e
}

// typeInfo is the typeInfo of the field's type: small enough to inline where it is known already.
func (f *field) typeInfo() *typeInfo {
	if ti := f.info.Load(); ti != nil {
		return ti
	}
	return f.firstInfo()
}

func (f *field) firstInfo() *typeInfo {
	ti := infoOf(f.typ)
	f.info.Store(ti)
	return ti
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// decodesItself reports whether encoding/json hands values of t (addressable) to a method or a
// rule of its own rather than to the field-by-field walk of builder.
func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	if pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType) {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8
	case reflect.Map:
		return t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType)
	}
	return false
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func isScalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}
