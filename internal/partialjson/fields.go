package partialjson

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
)

// structPlan maps a struct's JSON names to its fields, by encoding/json's rules: json tags name
// fields, embedded structs without a name promote theirs, and of several fields with one name the
// shallowest wins, then the one a tag names; a tie hides them all.
type structPlan struct {
	byName map[string]*field
	list   []*field // for case-insensitive matching, which encoding/json falls back to
}

type field struct {
	name   string
	index  []int
	typ    reflect.Type
	info   atomic.Pointer[typeInfo] // typ's, once met (computed late: a type may contain itself)
	depth  int
	pos    int // in its plan's list
	tagged bool
	// whole: the value is shown only once complete (a string with an enum tag, whose prefix
	// is not an allowed value; a ",string" field, whose text holds another JSON value).
	whole  bool
	quoted bool
	// direct: the field lies at offset in the struct, with no embedded pointer on the way, and is
	// settable, so the builder takes its address without reflect.
	direct bool
	offset uintptr
	// plain: direct and not ",string" on a scalar (what encoding/json quotes), so that the builder
	// takes the field's plain path unless its key was met before.
	plain bool
}

var plans sync.Map // reflect.Type -> *structPlan

func planOf(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	var all []*field
	collectFields(t, nil, 0, 0, true, map[reflect.Type]bool{}, &all)
	groups := map[string][]*field{}
	var order []string
	for _, f := range all {
		if groups[f.name] == nil {
			order = append(order, f.name)
		}
		groups[f.name] = append(groups[f.name], f)
	}
	plan := &structPlan{byName: map[string]*field{}}
	for _, name := range order {
		if f := dominant(groups[name]); f != nil {
			f.pos = len(plan.list)
			plan.byName[name] = f
			plan.list = append(plan.list, f)
		}
	}
	p, _ := plans.LoadOrStore(t, plan)
	return p.(*structPlan)
}

func dominant(fields []*field) *field {
	shallowest := fields[0].depth
	for _, f := range fields {
		shallowest = min(shallowest, f.depth)
	}
	var top, tagged []*field
	for _, f := range fields {
		if f.depth == shallowest {
			top = append(top, f)
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
	}
	switch {
	case len(top) == 1:
		return top[0]
	case len(tagged) == 1:
		return tagged[0]
	}
	return nil
}

func collectFields(t reflect.Type, index []int, depth int, offset uintptr, byValue bool, onPath map[reflect.Type]bool, out *[]*field) {
	if onPath[t] {
		return
	}
	onPath[t] = true
	defer delete(onPath, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		path := append(append([]int(nil), index...), i)
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
			if name == "" && ft.Kind() == reflect.Struct {
				collectFields(ft, path, depth+1, offset+sf.Offset, byValue && sf.Type.Kind() == reflect.Struct, onPath, out)
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		f := &field{name: name, index: path, typ: sf.Type, depth: depth, tagged: name != ""}
		if name == "" {
			f.name = sf.Name
		}
		f.quoted = hasOption(opts, "string")
		// Settable at a fixed offset: every embedded step is a struct held by value, and the field
		// is exported (one reached through an unexported embedded struct is settable too, as in
		// reflect and encoding/json).
		f.direct, f.offset = byValue && sf.IsExported(), offset+sf.Offset
		f.plain = f.direct && !(f.quoted && isScalar(deref(sf.Type).Kind()))
		_, enum := sf.Tag.Lookup("enum")
		f.whole = enum || f.quoted
		*out = append(*out, f)
	}
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// lookup finds the field a key names: exactly, else ignoring case as encoding/json does. Keys
// mostly come in the order of the fields: the field after the one last found (next) is tried
// before the map.
func (p *structPlan) lookup(key []byte, next int) *field {
	if next < len(p.list) {
		if f := p.list[next]; sameName(f.name, key) {
			return f
		}
	}
	return p.find(key)
}

// sameName is name == string(key), byte by byte: a key is short, and runtime.memequal's call and
// setup cost more than comparing it.
func sameName(name string, key []byte) bool {
	if len(name) != len(key) {
		return false
	}
	for i := range len(key) {
		if name[i] != key[i] {
			return false
		}
	}
	return true
}

func (p *structPlan) find(key []byte) *field {
	if f := p.byName[string(key)]; f != nil {
		return f
	}
	for _, f := range p.list {
		if strings.EqualFold(f.name, string(key)) {
			return f
		}
	}
	return nil
}

// fieldOf returns the field at index in struct v, allocating embedded pointers on the way; ok is
// false when an embedded pointer cannot be set (an unexported one), which encoding/json skips too.
func fieldOf(v reflect.Value, index []int) (reflect.Value, bool) {
	if len(index) == 1 {
		v = v.Field(index[0])
		return v, v.CanSet()
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, v.CanSet()
}
