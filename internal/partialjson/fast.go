package partialjson

import (
	"reflect"
	"strconv"
	"unsafe"
)

// The builder's plain path: the common values (a struct's field its plan places at an offset, a
// slice's element, strings, numbers and bools, pointers to them) are reached by address, without a
// reflect.Value per event. It does what the general path does for them; whatever it does not take
// (the root, maps, arrays, interfaces, values that decode themselves, ",string" fields, a key met
// again and everything inside one) goes the general way.

// plainTarget is the address where the value that begins now goes, its type, whether it shows and
// whether it is shown only once complete (whole); p is nil when the value takes the general path.
func (b *builder) plainTarget() (p unsafe.Pointer, ti *typeInfo, shown, whole bool) {
	n := len(b.stack)
	if n == 0 || b.general {
		return nil, nil, false, false
	}
	f := &b.stack[n-1]
	switch f.kind {
	case fStruct:
		if f.slotPtr != nil && f.fd != nil && !f.again && !f.quoted {
			return f.slotPtr, f.fd.typeInfo(), f.shown, f.fd.whole
		}
	case fSlice:
		if !f.base.IsValid() {
			return f.slotPtr, f.info, false, false
		}
	}
	return nil, nil, false, false
}

// derefAt follows the pointers at p, a value of ti's type, allocating the nil ones as deref does.
// A pointer is stored as one (a typed store the GC sees).
func (b *builder) derefAt(p unsafe.Pointer, ti *typeInfo, shown bool) unsafe.Pointer {
	for _, t := range ti.ptrs {
		pp := (*unsafe.Pointer)(p)
		if *pp == nil {
			*pp = b.new.alloc(t)
			b.changed = b.changed || shown
		}
		p = *pp
	}
	return p
}

// plainContainer begins a struct or a slice at p by its address; false leaves the value to the
// general path.
func (b *builder) plainContainer(p unsafe.Pointer, ti *typeInfo, shown, object bool) bool {
	if ti.decodes || containerKind(ti.kind, object) != fStruct && containerKind(ti.kind, object) != fSlice {
		return false
	}
	kind := containerKind(ti.kind, object)
	var spare reflect.Value
	if kind == fSlice {
		spare = b.spareSlot()
	}
	p = b.derefAt(p, ti, shown)
	b.stack = append(b.stack, frame{}) // filled in place: a frame is large
	f := &b.stack[len(b.stack)-1]
	f.kind, f.ptr, f.own, f.shown, f.depth, f.info = kind, p, ti.base, shown, 1, ti
	if kind == fSlice {
		f.info = ti.elemInfo()
		b.beginSlice(f, spare)
	}
	return true
}

// beginSlice makes a slice frame's slice non-nil and its element slot.
func (b *builder) beginSlice(f *frame, spare reflect.Value) {
	if h := (*sliceHeader)(f.ptr); h.data == nil {
		// Room for a few elements at once, rather than one and then two as append would give
		// a short slice.
		if q := b.new.run(f.info.t, 4); q != nil {
			*h = sliceHeader{data: q, cap: 4}
		} else {
			f.value().Grow(4)
		}
		b.changed = b.changed || f.shown
	}
	// The element is built in a slot of its own, not in the slice's spare capacity: a caller may
	// append to a partial's slice, which writes there.
	f.slot = b.slotFor(f.info.t, spare)
	f.slotPtr = unsafe.Pointer(f.slot.UnsafeAddr())
}

// value is the frame's value, made from its address when the plain path began it without one.
func (f *frame) value() reflect.Value {
	if !f.v.IsValid() {
		f.v = reflect.NewAt(f.own, f.ptr).Elem()
	}
	return f.v
}

// appendSlot moves a slice frame's complete element from its slot to the end of its slice.
func (f *frame) appendSlot() {
	h := (*sliceHeader)(f.ptr)
	if h.len == h.cap {
		f.value().Grow(1)
	}
	n := h.len
	h.len++
	if f.info.t.Kind() == reflect.String {
		// A string moves as one: its type's kind is String, so its memory is a string.
		at := (*string)(unsafe.Add(h.data, uintptr(n)*f.info.t.Size()))
		*at, *(*string)(f.slotPtr) = *(*string)(f.slotPtr), ""
		return
	}
	f.value().Index(n).Set(f.slot)
	f.slot.SetZero()
}

// setNumber sets a bool or number literal at p (pointers followed), as setLiteral does.
func (b *builder) setNumber(p unsafe.Pointer, ti *typeInfo, shown bool, text []byte) {
	if text[0] == 'n' { // null empties a pointer and leaves a number
		if len(ti.ptrs) > 0 {
			*(*unsafe.Pointer)(p) = nil
		}
		return
	}
	p = b.derefAt(p, ti, shown)
	switch ti.kind {
	case reflect.Bool:
		switch string(text) {
		case "true":
			*(*bool)(p) = true
		case "false":
			*(*bool)(p) = false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := smallInt(text)
		if !ok {
			var err error
			if n, err = strconv.ParseInt(string(text), 10, 64); err != nil {
				return
			}
		}
		bits := ti.base.Bits()
		if bits < 64 && (n < -1<<(bits-1) || n >= 1<<(bits-1)) {
			return
		}
		setInt(p, ti.kind, n)
	case reflect.Float64:
		if x, ok := exactFloat(text); ok {
			*(*float64)(p) = x
		} else if x, err := strconv.ParseFloat(string(text), 64); err == nil {
			*(*float64)(p) = x
		}
	default: // unsigned integers and float32: their own bounds and rounding, through reflect
		b.setLiteral(reflect.NewAt(ti.base, p).Elem(), ti, shown, text)
	}
}

func setInt(p unsafe.Pointer, k reflect.Kind, n int64) {
	switch k {
	case reflect.Int:
		*(*int)(p) = int(n)
	case reflect.Int8:
		*(*int8)(p) = int8(n)
	case reflect.Int16:
		*(*int16)(p) = int16(n)
	case reflect.Int32:
		*(*int32)(p) = int32(n)
	case reflect.Int64:
		*(*int64)(p) = n
	}
}

// smallInt is the value of a JSON number without fraction or exponent, of at most 18 digits (which
// an int64 holds); ok is false for any other.
func smallInt(text []byte) (int64, bool) {
	neg := text[0] == '-'
	digits := text
	if neg {
		digits = text[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat is the value of a JSON number (valid: the parser checked it) whose digits make an
// integer of at most 2^53 and whose power of ten is at most 22 either way: both are exact in a
// float64, so one multiplication or division rounds their product as strconv.ParseFloat rounds the
// text. ok is false for any other number, which strconv reads.
func exactFloat(text []byte) (float64, bool) {
	i, neg := 0, text[0] == '-'
	if neg {
		i++
	}
	// m takes at most 16 digits after its leading zeros: more would pass 2^53.
	var m uint64
	count, exp := 0, 0
	for ; i < len(text) && '0' <= text[i] && text[i] <= '9'; i++ {
		if m = m*10 + uint64(text[i]-'0'); m != 0 {
			if count++; count > 16 {
				return 0, false
			}
		}
	}
	if i < len(text) && text[i] == '.' {
		for i++; i < len(text) && '0' <= text[i] && text[i] <= '9'; i++ {
			if m = m*10 + uint64(text[i]-'0'); m != 0 {
				if count++; count > 16 {
					return 0, false
				}
			}
			exp--
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		if i++; i == len(text) {
			return 0, false
		}
		eneg := text[i] == '-'
		if text[i] == '-' || text[i] == '+' {
			i++
		}
		e, at := 0, i
		for ; i < len(text) && '0' <= text[i] && text[i] <= '9'; i++ {
			e = e*10 + int(text[i]-'0')
			if i-at >= 4 {
				return 0, false
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(text) || m > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	f := float64(m)
	if exp < 0 {
		f /= exactPow10[-exp]
	} else {
		f *= exactPow10[exp]
	}
	if neg {
		f = -f
	}
	return f, true
}
