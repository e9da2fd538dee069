package typed

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/infergate/infergate-go/internal/schema"
)

// plainDecoder reads one JSON value from s into memory laid out as its plan says; its methods
// report false where json.Unmarshal has to take over. Strings without escapes are cut from s.
type plainDecoder struct {
	s      string
	i      int
	arena  []byte       // holds the strings with escapes; only appended to, it moves when full
	texts  usage        // of the arena
	allocs []plainAlloc // by plan id
	// check, when the pass also proves the value valid against a schema (checking), counts what
	// schema.Checker counts, to bound the validator's work as it does; it reads the parts decoded by
	// json.Unmarshal.
	check    schema.Checker
	checking bool
}

// plainAlloc hands out a plan's slices or pointees from blocks of elements. Every element is
// handed out once, zero: a slice being read grows at the top of the block (moved to a larger one
// when it fills), and is cut off it when it ends. busy marks a slice being read, for the values
// of recursive types, whose slices nest: an inner one gets a block of its own.
type plainAlloc struct {
	block     reflect.Value // a slice
	base      unsafe.Pointer
	used, cap int
	busy      bool
	usage
}

// usage sizes the blocks of an allocator from what it handed out in the text read so far,
// expecting the rest of the text to need as much for its length.
type usage struct {
	first  int // where in the text the first block was made
	handed int // elements or bytes handed out
}

// size returns the size of a new block for at least need more elements (bytes), of which
// inUse are handed out but not yet counted: what the rest of the text is expected to need, but
// at most four times what was handed out, nor more than the rest of the text could hold.
func (u *usage) size(d *plainDecoder, need, inUse, least int) int {
	handed, rest := u.handed+inUse, len(d.s)-d.i
	if handed == 0 {
		u.first = d.i
		return need + least
	}
	expected := int(float64(handed) * float64(rest) / float64(max(d.i-u.first, 1)))
	return need + max(0, min(expected+expected/8+least, rest/2+1, 4*handed+least))
}

// sliceHeader is a slice's layout.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// maxPlainDepth bounds nesting as encoding/json does, whose limit is far above it.
const maxPlainDepth = 1000

// newBlock makes a's block one of at least need elements; inUse are the elements of a slice
// being read, which the caller moves to it.
func (d *plainDecoder) newBlock(a *plainAlloc, p *plainPlan, need, inUse int) {
	c := a.size(d, need, inUse, 4)
	a.block = reflect.MakeSlice(p.block, c, c)
	a.base, a.used, a.cap = a.block.UnsafePointer(), 0, c
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
	if d.i < len(d.s) && d.s[d.i] > ' ' {
		return d.s[d.i]
	}
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

// other hands a value to json.Unmarshal, on its own text; when checking, schema.Checker reads it.
func (d *plainDecoder) other(ptr unsafe.Pointer, p *plainPlan, depth int) bool {
	start := d.i
	if d.checking {
		d.check.Pos = start
		if !d.check.Value(p.node, int64(depth)) {
			return false
		}
		d.i = d.check.Pos
	} else if !d.skip(depth) {
		return false
	}
	return json.Unmarshal([]byte(d.s[start:d.i]), reflect.NewAt(p.t, ptr).Interface()) == nil
}

// field finds a struct's field by its exact name, looking first where the last one met leaves off.
func (p *plainPlan) field(key string, next int) int {
	if next < len(p.fields) && p.fields[next].name == key {
		return next
	}
	for i := range p.fields {
		if p.fields[i].name == key {
			return i
		}
	}
	return -1
}

// nextField reads a key and its colon, and returns its field's index; -1 when no field has that
// exact name. The field after the last one met (fields come in their order, mostly) is looked
// for first as `"name":` in the text itself: its name has no characters escapes would stand for.
func (d *plainDecoder) nextField(p *plainPlan, next int) int {
	if next < len(p.fields) && strings.HasPrefix(d.s[d.i:], p.fields[next].key) {
		d.i += len(p.fields[next].key)
		return next
	}
	if d.next() != '"' {
		return -1
	}
	key, ok := d.str()
	if !ok || d.next() != ':' {
		return -1
	}
	d.i++
	return p.field(key, next)
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

// members reads an object's members, handing each key to member, which reads the value.
func (d *plainDecoder) members(member func(key string) bool) bool {
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
		*(*sliceHeader)(ptr) = sliceHeader{data: p.empty} // empty, not nil
		return p.node.AdmitsCount(0)
	}
	a := &d.allocs[p.id]
	if a.busy {
		a = &plainAlloc{}
	}
	a.busy = true
	start, size := a.used, p.elem.size
	for n := 0; ; n++ {
		if start+n == a.cap {
			old, from := a.block, start
			d.newBlock(a, p, n+1, n)
			if n > 0 {
				reflect.Copy(a.block, old.Slice(from, from+n))
			}
			start = 0
		}
		if !d.value(unsafe.Add(a.base, uintptr(start+n)*size), p.elem, depth+1) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case ']':
			d.i++
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
