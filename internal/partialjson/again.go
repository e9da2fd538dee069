package partialjson

import "reflect"

// What a key met again needs (see builder): starting its value over, and knowing, inside a value
// met again, what the earlier one left at each place, for slice elements to be decoded into theirs.

// again starts over v, the value that begins now (or the one its pointers lead to), when its key
// was met before in this object: only an earlier key makes a struct's field non-zero here. It
// returns v, now zero, and a copy of what the earlier key left (the base encoding/json decodes the
// new value into); both are invalid for a key met for the first time.
func (b *builder) again(v reflect.Value, shown bool) (_, base reflect.Value) {
	if f := b.top(); f == nil || f.kind != fStruct || !v.IsValid() || v.IsZero() {
		return reflect.Value{}, reflect.Value{}
	}
	base = reflect.New(v.Type()).Elem()
	base.Set(v)
	v.SetZero()
	b.changed = b.changed || shown
	return v, base
}

// prior is what an earlier value left where the value that begins now goes, inside a value met
// again; invalid when nothing did. A map's values have none: encoding/json replaces them.
func (b *builder) prior() reflect.Value {
	f := b.top()
	if f == nil || !f.base.IsValid() {
		return reflect.Value{}
	}
	switch f.kind {
	case fStruct:
		return f.slotBase
	case fArray:
		if f.index < f.base.Len() {
			return f.base.Index(f.index)
		}
	case fSlice:
		// encoding/json reuses the elements of the earlier slice up to its capacity, not its length.
		if n := f.built(); n < f.base.Cap() {
			return f.base.Slice(0, f.base.Cap()).Index(n)
		}
	}
	return reflect.Value{}
}

// derefBase follows a base's pointers; a nil one leaves nothing to decode into.
func derefBase(v reflect.Value) reflect.Value {
	for v.IsValid() && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// baseField is the field at index in base without allocating embedded pointers: invalid when one
// is nil.
func baseField(base reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && base.Kind() == reflect.Pointer {
			if base.IsNil() {
				return reflect.Value{}
			}
			base = base.Elem()
		}
		base = base.Field(x)
	}
	return base
}
