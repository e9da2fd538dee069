//go:build !purego

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

// addr is what the plain path keeps in a frame. ptr is the address of v (fStruct, fSlice), of type
// own; v itself is made from it only when the general path needs it (value). slotPtr is slot's
// address (fSlice), or the pending field's when it takes the plain path (fStruct: a direct field,
// met once, not ",string", outside a value met again), else nil. hdr (fSlice) is the slice as the
// builder has it, with its array's capacity, which the slice shown does not have.
type addr struct {
	ptr, slotPtr unsafe.Pointer
	hdr          sliceHeader
}

// plainBegin begins an object or array by the plain path; false leaves it to the general path.
func (b *builder) plainBegin(object bool) bool {
	p, ti, shown, _ := b.plainTarget()
	return p != nil && b.plainContainer(p, ti, shown, object)
}

// plainString opens a string by the plain path; false leaves it to the general path.
func (b *builder) plainString() bool {
	p, ti, shown, whole := b.plainTarget()
	if p == nil || !ti.text {
		return false
	}
	b.openString((*string)(b.derefAt(p, ti, shown)), shown && !whole)
	return true
}

// plainLiteral sets a bool or number by the plain path; false leaves it to the general path.
func (b *builder) plainLiteral(text []byte) bool {
	p, ti, shown, _ := b.plainTarget()
	if p == nil || !ti.number {
		return false
	}
	b.setNumber(p, ti, shown, text)
	return true
}

// plainKey makes the pending key's field, in f, the plain path's, by its address; target makes
// slot from it if the general path needs it. The safe twin reaches every field the general way.
func (b *builder) plainKey(f *frame) bool {
	if b.safe {
		return false
	}
	f.slotPtr, f.slotInfo, f.slot, f.quoted = unsafe.Add(f.ptr, f.fd.offset), f.fd.typeInfo(), reflect.Value{}, false
	return true
}

// locate keeps the address of v, the value of a frame the general path began, for the plain path
// of the values inside it.
func (b *builder) locate(f *frame, v reflect.Value) {
	if !b.safe {
		f.ptr = unsafe.Pointer(v.UnsafeAddr())
	}
}

// slotValue is the frame's slot, made from its address when the plain path took it, of type t.
func (f *frame) slotValue(t reflect.Type) reflect.Value {
	if !f.slot.IsValid() {
		f.slot = reflect.NewAt(t, f.slotPtr).Elem()
	}
	return f.slot
}

// forgetSlot drops the address of the pending field, once its value is complete or another key
// comes.
func (f *frame) forgetSlot() { f.slotPtr = nil }

// built is the length of a slice frame's slice as the builder has it.
func (f *frame) built() int {
	if f.full.IsValid() {
		return f.full.Len()
	}
	return f.hdr.len
}

// openValue opens a string whose destination is v, a string kind: its memory is a string's.
func (b *builder) openValue(v reflect.Value, show bool) {
	if b.safe {
		b.openStringSafe(v, show)
		return
	}
	b.openString((*string)(unsafe.Pointer(v.UnsafeAddr())), show)
}

// plainTarget is the address where the value that begins now goes, its type, whether it shows and
// whether it is shown only once complete (whole); p is nil when the value takes the general path.
func (b *builder) plainTarget() (p unsafe.Pointer, ti *typeInfo, shown, whole bool) {
	n := len(b.stack)
	if n == 0 || b.general || b.safe {
		return nil, nil, false, false
	}
	f := &b.stack[n-1]
	switch f.kind {
	case fStruct:
		if f.slotPtr != nil {
			return f.slotPtr, f.slotInfo, f.shown, f.fd.whole
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
	if len(ti.ptrs) == 0 {
		return p
	}
	return b.derefPtrs(p, ti, shown)
}

func (b *builder) derefPtrs(p unsafe.Pointer, ti *typeInfo, shown bool) unsafe.Pointer {
	for _, to := range ti.ptrs {
		pp := (*unsafe.Pointer)(p)
		if *pp == nil {
			*pp = b.new.alloc(to)
			b.changed = b.changed || shown
		}
		p = *pp
	}
	return p
}

// plainContainer begins a struct or a slice at p by its address; false leaves the value to the
// general path.
func (b *builder) plainContainer(p unsafe.Pointer, ti *typeInfo, shown, object bool) bool {
	kind := containerKind(ti.kind, object)
	if ti.decodes || kind != fStruct && kind != fSlice {
		return false
	}
	p = b.derefAt(p, ti, shown)
	b.stack = append(b.stack, frame{}) // filled in place: a frame is large
	f := &b.stack[len(b.stack)-1]
	f.kind, f.ptr, f.own, f.shown, f.depth, f.info = kind, p, ti.base, shown, 1, ti
	if kind == fSlice {
		f.info = ti.elemInfo()
		b.beginSlice(f)
	}
	return true
}

// beginSlice makes a slice frame's slice non-nil and its first element's slot.
//
// An element is built where it will stay, in the slice's array past its length, but the slice the
// value shows has no spare capacity: a caller may append to a partial's slice, which then copies it
// rather than writing over the element in progress. The frame keeps the slice as it has it (hdr,
// with the array's capacity) and only writes the value's header, never reads it again: a caller
// who assigns to a partial's slice (through a pointer they share) loses the assignment at the
// next element, and cannot make the builder write past the array.
func (b *builder) beginSlice(f *frame) {
	if b.safe {
		b.beginSliceSafe(f)
		return
	}
	h := (*sliceHeader)(f.ptr)
	if h.data == nil {
		// Room for a few elements at once, rather than one and then two as append would give
		// a short slice.
		if q := b.new.run(f.info, 4); q != nil {
			*h = sliceHeader{data: q, cap: 4}
		} else {
			f.value().Grow(4)
		}
		b.changed = b.changed || f.shown
	}
	f.hdr = *h
	f.takeSlot()
}

// takeSlot makes room for the next element, as append would, shows the slice without its spare
// capacity and takes the element's slot.
func (f *frame) takeSlot() {
	if f.hdr.len == f.hdr.cap {
		reflect.NewAt(f.own, unsafe.Pointer(&f.hdr)).Elem().Grow(1)
	}
	*(*sliceHeader)(f.ptr) = sliceHeader{data: f.hdr.data, len: f.hdr.len, cap: f.hdr.len}
	f.slotPtr, f.slot = unsafe.Add(f.hdr.data, uintptr(f.hdr.len)*f.info.size), reflect.Value{}
}

// value is the frame's value, made from its address when the plain path began it without one.
func (f *frame) value() reflect.Value {
	if !f.v.IsValid() {
		f.v = reflect.NewAt(f.own, f.ptr).Elem()
	}
	return f.v
}

// appendSlot makes a slice frame's complete element, built in place, part of the slice, and
// takes the next one's slot.
func (f *frame) appendSlot() {
	if f.full.IsValid() {
		f.appendSlotSafe()
		return
	}
	f.hdr.len++
	f.takeSlot()
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
		if x, ok := readFloat(text); ok {
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
