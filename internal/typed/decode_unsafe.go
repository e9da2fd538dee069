//go:build !purego

package typed

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/infergate/infergate-go/internal/schema"
)

// This file is the typed decoder's unsafe twin, the default build's: it writes values through
// their addresses, as the plan's offsets and sizes lay them out, and cuts strings with escapes
// from the arena without a copy. Its safe twin is decode_safe.go; the purego build has only that
// one (decode_purego.go selects it).

// DecodePlain is the one pass; with q, it also proves the value valid against q's schema. It
// reports false, with *v zero again, where json.Unmarshal (and the validator) have to take over.
func DecodePlain[T any](text string, v *T, q *schema.QuickSchema) bool {
	return decodeUnsafe(text, reflect.TypeFor[T](), unsafe.Pointer(v), q)
}

// decodeInto is DecodePlain for a value known by reflect: ptr points at it.
func decodeInto(text string, ptr reflect.Value, q *schema.QuickSchema) bool {
	return decodeUnsafe(text, ptr.Type().Elem(), ptr.UnsafePointer(), q)
}

// decodeUnsafe decodes text into the value of type t at ptr, which holds its zero value.
func decodeUnsafe(text string, t reflect.Type, ptr unsafe.Pointer, q *schema.QuickSchema) bool {
	p := plainPlanOf(t, q)
	if p.kind == pkOther {
		return false
	}
	d := plainDecoder{s: text, allocs: make([]plainAlloc, p.allocs)}
	if q != nil {
		d.check.Data, d.checking = unsafe.Slice(unsafe.StringData(text), len(text)), true
	}
	if d.value(ptr, p, 0) && d.end() && (q == nil || d.check.Within(q)) {
		return true
	}
	reflect.NewAt(t, ptr).Elem().SetZero()
	return false
}

// blockBase is where a block's elements start.
type blockBase = unsafe.Pointer

func baseOf(block reflect.Value) blockBase { return block.UnsafePointer() }

// viewString returns b's bytes as a string without copying them: the arena they are in is only
// appended to, so they never change.
func viewString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// sliceHeader is a slice's layout.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// one hands out a zero element.
func (d *plainDecoder) one(p *plainPlan) unsafe.Pointer {
	a := &d.allocs[p.id]
	if a.used == a.cap {
		d.newBlock(a, p, 1, 0)
	}
	a.used++
	a.handed++
	return unsafe.Add(a.base, uintptr(a.used-1)*p.elem.size)
}

// value decodes the next value into the memory at ptr, of p's type and holding its zero value.
// When checking, it counts and checks the value as Checker.value does.
func (d *plainDecoder) value(ptr unsafe.Pointer, p *plainPlan, depth int) bool {
	c := d.next()
	if p.kind == pkOther {
		return d.other(ptr, p, depth)
	}
	n := p.node
	if d.checking {
		if depth > schema.MaxQuickDepth || c == 0 {
			return false
		}
		d.check.Nodes++
		d.check.MaxDepth = max(d.check.MaxDepth, int64(depth))
		if n != nil {
			if n.Never {
				return false
			}
			d.check.Work += n.Cost
		}
	} else if depth > maxPlainDepth {
		return false
	}
	if c == 'n' {
		return d.literal("null") && n.Admits(schema.KindNull, nil) // leaves the zero value, as encoding/json does
	}
	for hops := 0; p.kind == pkPointer; hops++ {
		if hops > maxPlainDepth {
			return false
		}
		target := d.one(p)
		*(*unsafe.Pointer)(ptr) = target
		ptr, p = target, p.elem
		if p.kind == pkOther {
			if d.checking { // counted above; d.other counts it again
				d.check.Nodes--
				if n != nil {
					d.check.Work -= n.Cost
				}
			}
			return d.other(ptr, p, depth)
		}
	}
	switch p.kind {
	case pkString:
		s, ok := d.str()
		*(*string)(ptr) = s
		return ok && n.AdmitsString(s)
	case pkBool:
		var b bool
		switch {
		case d.literal("true"):
			b = true
		case d.literal("false"):
		default:
			return false
		}
		*(*bool)(ptr) = b
		return n.Admits(schema.KindBoolean, b)
	case pkInt, pkUint, pkFloat:
		return d.number(ptr, p)
	case pkStruct:
		return c == '{' && n.AdmitsContainer(schema.KindObject) && d.object(ptr, p, depth)
	case pkMap:
		return c == '{' && n.AdmitsContainer(schema.KindObject) && d.mapping(ptr, p, depth)
	}
	return c == '[' && n.AdmitsContainer(schema.KindArray) && d.array(ptr, p, depth)
}

// other hands a value to json.Unmarshal, on its own text; when checking, the Checker reads it.
func (d *plainDecoder) other(ptr unsafe.Pointer, p *plainPlan, depth int) bool {
	start, ok := d.otherText(p, depth)
	return ok && json.Unmarshal([]byte(d.s[start:d.i]), reflect.NewAt(p.t, ptr).Interface()) == nil
}

// object decodes a struct's fields, each named exactly and once.
func (d *plainDecoder) object(ptr unsafe.Pointer, p *plainPlan, depth int) bool {
	var met, props uint64
	next := 0
	d.i++
	if d.next() == '}' {
		d.i++
		return p.node.HasRequired(0)
	}
	for {
		at := d.nextField(p, next)
		if at < 0 {
			return false
		}
		f := &p.fields[at]
		if met&f.bit != 0 || f.refused {
			return false
		}
		met, props, next = met|f.bit, props|f.prop, at+1
		if !d.value(unsafe.Add(ptr, f.offset), f.plan, depth+1) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return p.node.HasRequired(props)
		default:
			return false
		}
	}
}

func (d *plainDecoder) mapping(ptr unsafe.Pointer, p *plainPlan, depth int) bool {
	m := reflect.NewAt(p.t, ptr).Elem()
	m.Set(reflect.MakeMap(p.t))
	keyType := p.t.Key()
	return d.members(func(key string) bool {
		if p.node != nil && p.node.NoExtra {
			return false
		}
		elem := reflect.New(p.elem.t)
		if !d.value(elem.UnsafePointer(), p.elem, depth+1) {
			return false
		}
		size := m.Len()
		m.SetMapIndex(reflect.ValueOf(key).Convert(keyType), elem.Elem())
		return m.Len() > size // a key met again is merged by encoding/json: it takes over
	})
}

// array decodes a slice's or an array's elements; an array takes no more than its length.
func (d *plainDecoder) array(ptr unsafe.Pointer, p *plainPlan, depth int) bool {
	d.i++
	if p.kind == pkArray {
		length := p.t.Len()
		if d.next() == ']' {
			d.i++
			return p.node.AdmitsCount(0)
		}
		for n := 0; ; n++ {
			if n == length || !d.value(unsafe.Add(ptr, uintptr(n)*p.elem.size), p.elem, depth+1) {
				return false
			}
			switch d.next() {
			case ',':
				d.i++
			case ']':
				d.i++
				return p.node.AdmitsCount(n + 1)
			default:
				return false
			}
		}
	}
	if d.next() == ']' {
		d.i++
		*(*sliceHeader)(ptr) = sliceHeader{data: p.empty.UnsafePointer()} // empty, not nil
		return p.node.AdmitsCount(0)
	}
	a := &d.allocs[p.id]
	if a.busy {
		a = &plainAlloc{}
	}
	a.busy = true
	if a.used == a.cap {
		d.newBlock(a, p, 1, 0)
	}
	start, size := a.used, p.elem.size
	at, room := unsafe.Add(a.base, uintptr(start)*size), a.cap-start // where the elements are read
	var s *scratchBlock
	for n := 0; ; n++ {
		if n == room {
			s = spill(a, p, s, start, n)
			at, room = s.base, s.cap
		}
		if !d.value(unsafe.Add(at, uintptr(n)*size), p.elem, depth+1) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case ']':
			d.i++
			if s != nil {
				start = d.settle(a, p, s, n+1)
			}
			*(*sliceHeader)(ptr) = sliceHeader{data: unsafe.Add(a.base, uintptr(start)*size), len: n + 1, cap: n + 1}
			a.used, a.busy, a.handed = start+n+1, false, a.handed+n+1
			return p.node.AdmitsCount(n + 1)
		default:
			return false
		}
	}
}

// number decodes a number into an integer or a float. Integers that fit in an int64 and float64s
// whose digits and power of ten are exact in a float64 are worked out here, exactly as strconv
// would; the others by strconv.
func (d *plainDecoder) number(ptr unsafe.Pointer, p *plainPlan) bool {
	num := d.numberText()
	text, plain := num.text, num.plain
	if text == "" {
		return false
	}
	n := p.node
	switch p.kind {
	case pkFloat:
		if p.size == 4 {
			f, err := strconv.ParseFloat(text, 32)
			*(*float32)(ptr) = float32(f)
			return err == nil && (n == nil || n.AdmitsNumber(text, plain))
		}
		f, ok := num.float()
		if !ok {
			var err error
			if f, err = strconv.ParseFloat(text, 64); err != nil {
				return false
			}
		}
		*(*float64)(ptr) = f
		if n == nil || !n.NeedsValue(text, plain) {
			return n.AdmitsInteger()
		}
		return n.AdmitsFloat(f)
	case pkInt:
		bits := int(p.size * 8)
		v, ok := num.int()
		if !ok || v < -1<<(bits-1) || v > 1<<(bits-1)-1 {
			var err error
			if v, err = strconv.ParseInt(text, 10, bits); err != nil {
				return false
			}
		}
		switch p.size {
		case 1:
			*(*int8)(ptr) = int8(v)
		case 2:
			*(*int16)(ptr) = int16(v)
		case 4:
			*(*int32)(ptr) = int32(v)
		default:
			*(*int64)(ptr) = v
		}
	default:
		v, err := strconv.ParseUint(text, 10, int(p.size*8))
		if err != nil {
			return false
		}
		switch p.size {
		case 1:
			*(*uint8)(ptr) = uint8(v)
		case 2:
			*(*uint16)(ptr) = uint16(v)
		case 4:
			*(*uint32)(ptr) = uint32(v)
		default:
			*(*uint64)(ptr) = v
		}
	}
	return n == nil || n.AdmitsNumber(text, plain) // a nil node admits what fits the Go type
}
