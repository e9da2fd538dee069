package infergate

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// decodeValue decodes an answer's JSON into *v exactly as json.Unmarshal does. Types made of
// plain parts (structs with named fields, slices, arrays, maps with string keys, pointers,
// strings, numbers, bools) are decoded in one pass over the text from a plan cached per type;
// any part that decodes itself (Unmarshaler, TextUnmarshaler, interfaces, []byte, ...) is handed
// to json.Unmarshal on its own text. Whatever the pass is not sure to decode as encoding/json
// would (an escape it does not expect, invalid UTF-8, a key that is not a field's exact name, a
// key met twice, a number that does not fit, a syntax error) starts over with json.Unmarshal on
// the whole text, so the value and the error are always encoding/json's on the running toolchain.
// Strings are cut from one copy of the text, and the few with escapes from one buffer, to save
// an allocation each: a string kept keeps that copy in memory.
func decodeValue[T any](raw []byte, v *T) error {
	if decodePlain(raw, v) {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// decodePlain is decodeValue's one pass; it reports false, with *v zero again, where
// json.Unmarshal has to decode the text.
func decodePlain[T any](raw []byte, v *T) bool {
	p := plainPlanOf(reflect.TypeFor[T]())
	if p.kind == pkOther {
		return false
	}
	d := plainDecoder{s: string(raw)}
	if d.value(reflect.ValueOf(v).Elem(), p, 0) && d.end() {
		return true
	}
	var zero T
	*v = zero
	return false
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

// plainPlan is how a type's values are decoded.
type plainPlan struct {
	kind   plainKind
	t      reflect.Type
	bits   int        // pkInt, pkUint, pkFloat
	elem   *plainPlan // pkSlice, pkArray, pkMap, pkPointer
	fields map[string]plainField
}

type plainField struct {
	index int
	bit   uint64 // marks the field as met in its object
	plan  *plainPlan
}

var plainPlans sync.Map // reflect.Type -> *plainPlan

func plainPlanOf(t reflect.Type) *plainPlan {
	if p, ok := plainPlans.Load(t); ok {
		return p.(*plainPlan)
	}
	p, _ := plainPlans.LoadOrStore(t, buildPlainPlan(t, map[reflect.Type]*plainPlan{}))
	return p.(*plainPlan)
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

// buildPlainPlan plans t; building holds the plans under construction, for recursive types.
func buildPlainPlan(t reflect.Type, building map[reflect.Type]*plainPlan) *plainPlan {
	if p := building[t]; p != nil {
		return p
	}
	p := &plainPlan{t: t}
	building[t] = p
	if decodesOnItsOwn(t) {
		return p
	}
	switch t.Kind() {
	case reflect.String:
		p.kind = pkString
	case reflect.Bool:
		p.kind = pkBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind, p.bits = pkInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.kind, p.bits = pkUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		p.kind, p.bits = pkFloat, t.Bits()
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 { // []byte is base64 text
			p.kind, p.elem = pkSlice, buildPlainPlan(t.Elem(), building)
		}
	case reflect.Array:
		p.kind, p.elem = pkArray, buildPlainPlan(t.Elem(), building)
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !decodesOnItsOwn(t.Key()) {
			p.kind, p.elem = pkMap, buildPlainPlan(t.Elem(), building)
		}
	case reflect.Pointer:
		p.kind, p.elem = pkPointer, buildPlainPlan(t.Elem(), building)
	case reflect.Struct:
		if fields, ok := plainFields(t, building); ok {
			p.kind, p.fields = pkStruct, fields
		}
	}
	return p
}

// plainFields maps a struct's JSON names to its fields; ok is false for a struct whose names
// encoding/json's versions could read differently: embedded fields, names that differ only in
// case, tags with options other than omitempty and omitzero or names of unusual characters.
func plainFields(t reflect.Type, building map[reflect.Type]*plainPlan) (map[string]plainField, bool) {
	fields := map[string]plainField{}
	var folded []string
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
		for _, other := range folded {
			if strings.EqualFold(other, name) {
				return nil, false
			}
		}
		folded = append(folded, name)
		fields[name] = plainField{index: i, bit: 1 << len(fields), plan: buildPlainPlan(sf.Type, building)}
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

// plainDecoder reads one JSON value from s; its methods report false where json.Unmarshal has
// to take over. Strings without escapes are cut from s, which holds the whole text once.
type plainDecoder struct {
	s     string
	i     int
	arena strings.Builder // the strings with escapes
}

// maxPlainDepth bounds nesting as encoding/json does, whose limit is far above it.
const maxPlainDepth = 1000

func (d *plainDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *plainDecoder) end() bool {
	d.space()
	return d.i == len(d.s)
}

// next skips spaces and returns the next byte, 0 at the end.
func (d *plainDecoder) next() byte {
	d.space()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

func (d *plainDecoder) literal(word string) bool {
	if strings.HasPrefix(d.s[d.i:], word) {
		d.i += len(word)
		return true
	}
	return false
}

// value decodes the next value into v, addressable and holding its type's zero value.
func (d *plainDecoder) value(v reflect.Value, p *plainPlan, depth int) bool {
	c := d.next()
	if p.kind == pkOther {
		start := d.i
		return d.skip(depth) && json.Unmarshal([]byte(d.s[start:d.i]), v.Addr().Interface()) == nil
	}
	if c == 'n' {
		return d.literal("null") // leaves the zero value, as encoding/json does
	}
	switch p.kind {
	case pkString:
		s, ok := d.str()
		if ok {
			v.SetString(s)
		}
		return ok
	case pkBool:
		switch {
		case d.literal("true"):
			v.SetBool(true)
		case d.literal("false"):
		default:
			return false
		}
		return true
	case pkInt:
		n, err := strconv.ParseInt(d.number(), 10, p.bits)
		v.SetInt(n)
		return err == nil
	case pkUint:
		n, err := strconv.ParseUint(d.number(), 10, p.bits)
		v.SetUint(n)
		return err == nil
	case pkFloat:
		text := d.number()
		n, err := strconv.ParseFloat(text, p.bits)
		v.SetFloat(n)
		return text != "" && err == nil
	case pkPointer:
		if depth > maxPlainDepth {
			return false
		}
		target := reflect.New(p.elem.t)
		v.Set(target)
		return d.value(target.Elem(), p.elem, depth+1)
	}
	if depth > maxPlainDepth {
		return false
	}
	switch p.kind {
	case pkStruct:
		return d.object(v, p, depth)
	case pkMap:
		return d.mapping(v, p, depth)
	}
	return d.array(v, p, depth)
}

// object decodes a struct's fields, each named exactly and once.
func (d *plainDecoder) object(v reflect.Value, p *plainPlan, depth int) bool {
	var met uint64
	return d.members(func(key string) bool {
		f, ok := p.fields[key]
		if !ok || met&f.bit != 0 {
			return false
		}
		met |= f.bit
		return d.value(v.Field(f.index), f.plan, depth+1)
	})
}

func (d *plainDecoder) mapping(v reflect.Value, p *plainPlan, depth int) bool {
	if d.next() != '{' {
		return false
	}
	v.Set(reflect.MakeMap(p.t))
	keyType := p.t.Key()
	return d.members(func(key string) bool {
		elem := reflect.New(p.elem.t).Elem()
		if !d.value(elem, p.elem, depth+1) {
			return false
		}
		size := v.Len()
		v.SetMapIndex(reflect.ValueOf(key).Convert(keyType), elem)
		return v.Len() > size // a key met again is merged by encoding/json: it takes over
	})
}

// members reads an object's members, handing each key to member, which reads the value.
func (d *plainDecoder) members(member func(key string) bool) bool {
	if d.next() != '{' {
		return false
	}
	d.i++
	if d.next() == '}' {
		d.i++
		return true
	}
	for {
		if d.next() != '"' {
			return false
		}
		key, ok := d.str()
		if !ok || d.next() != ':' {
			return false
		}
		d.i++
		if !member(key) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// array decodes a slice's or an array's elements; an array takes no more than its length.
func (d *plainDecoder) array(v reflect.Value, p *plainPlan, depth int) bool {
	if d.next() != '[' {
		return false
	}
	d.i++
	slice := p.kind == pkSlice
	if d.next() == ']' {
		d.i++
		if slice {
			v.Set(reflect.MakeSlice(p.t, 0, 0)) // empty, not nil
		}
		return true
	}
	for n := 0; ; n++ {
		if slice {
			if n == v.Cap() {
				v.Grow(max(4, n)) // doubling, from 4 as encoding/json does
			}
			v.SetLen(n + 1)
		} else if n == v.Len() {
			return false
		}
		if !d.value(v.Index(n), p.elem, depth+1) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true
		default:
			return false
		}
	}
}
