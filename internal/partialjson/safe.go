package partialjson

import "reflect"

// The builder's unsafe code (fast.go, alloc.go) has safe twins, here: a builder whose safe field
// is set, and every builder built with the purego tag (purego.go), takes the general path alone,
// allocates with reflect.New, and builds slices through reflect. The differential tests and fuzz
// targets hold the two to the same values.

// derefSafe follows pointers, allocating the nil ones, as deref does.
func (b *builder) derefSafe(v reflect.Value, shown bool) reflect.Value {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			b.changed = b.changed || shown
		}
		v = v.Elem()
	}
	return v
}

// beginSliceSafe is beginSlice through reflect: the frame keeps the slice as it has it in full,
// with its array's capacity, and only ever sets the value's slice, never reads it again (see
// beginSlice).
func (b *builder) beginSliceSafe(f *frame) {
	v := f.v
	if v.IsNil() {
		v.Set(reflect.MakeSlice(v.Type(), 0, 4))
		b.changed = b.changed || f.shown
	}
	f.full = reflect.New(v.Type()).Elem()
	f.full.Set(v)
	f.takeSlotSafe()
}

// takeSlotSafe is takeSlot through reflect.
func (f *frame) takeSlotSafe() {
	n := f.full.Len()
	if n == f.full.Cap() {
		f.full.Grow(1)
	}
	f.v.Set(f.full.Slice3(0, n, n))
	f.slot = f.full.Slice(0, n+1).Index(n)
}

// appendSlotSafe is appendSlot through reflect.
func (f *frame) appendSlotSafe() {
	f.full.SetLen(f.full.Len() + 1)
	f.takeSlotSafe()
}

// openStringSafe opens a string whose destination is v, a string kind, as openValue does.
func (b *builder) openStringSafe(v reflect.Value, show bool) {
	if p, ok := v.Addr().Interface().(*string); ok {
		b.openString(p, show)
		return
	}
	b.openString(nil, show)
	b.strV = v
}

// spareSlot returns the element slot of the map whose frame was last at the place the next frame
// takes, if any. done zeroes a slot once its element is copied out, and a frame ends only after its
// last element, so the slot is zero and nothing but that frame used it: an object met once per
// element of another (attributes in each record) builds its elements in one slot.
func (b *builder) spareSlot() (reflect.Value, *typeInfo) {
	n := len(b.stack)
	if n == cap(b.stack) {
		return reflect.Value{}, nil
	}
	if old := &b.stack[:n+1][n]; old.kind == fMap {
		return old.slot, old.info // info: the type of its elements, the slot's
	}
	return reflect.Value{}, nil
}

// slotFor returns spare when it is a slot of ti's type (spareInfo), else a new slot.
func (b *builder) slotFor(ti *typeInfo, spare reflect.Value, spareInfo *typeInfo) reflect.Value {
	if spare.IsValid() && spareInfo == ti {
		return spare
	}
	return b.newElem(ti)
}
