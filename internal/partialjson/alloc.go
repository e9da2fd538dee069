//go:build !purego

package partialjson

import (
	"reflect"
	"unsafe"
)

// blocks hands out new values of a type from arrays allocated several at a time, as reflect.New
// would one at a time: a value met hundreds of times (a pointer field in each element of a long
// array, the element a slice is built in, the first elements of a short slice in each) then costs
// one allocation per block rather than one each. A value handed out is never handed out again, so
// nothing else writes to it; it keeps its block alive as long as it lives, which the block's bound
// limits.
type blocks struct {
	// recent: the blocks of the types met last, looked through before the map: a value mostly
	// needs one or two types, and comparing types costs less than hashing one.
	recent [4]*block
	next   int // the entry of recent replaced next
	byType map[*typeInfo]*block
}

type block struct {
	ti   *typeInfo      // of the values handed out: compared as a pointer, which costs less than a type
	arr  unsafe.Pointer // an array of t
	len  int            // arr's
	next int            // the first element of arr not handed out
	// arrType is arr's type, kept for the next array: once a block has grown to blockMax, every
	// array it takes has that type.
	arrType reflect.Type
}

// blockMax bounds a block's length and blockBytes the size of a value it holds, so that a value
// kept keeps little else alive.
const (
	blockMax   = 64
	blockBytes = 128
)

// alloc returns a pointer to a new zero value of ti's type, as reflect.New(t).UnsafePointer()
// does.
func (bs *blocks) alloc(ti *typeInfo) unsafe.Pointer {
	if p := bs.run(ti, 1); p != nil {
		return p
	}
	return reflect.New(ti.t).UnsafePointer()
}

// run returns a pointer to n new zero values of ti's type one after the other, as an array, or nil
// when they would be too large for a block, or of size zero.
func (bs *blocks) run(ti *typeInfo, n int) unsafe.Pointer {
	size := ti.size
	if size == 0 || size*uintptr(n) > blockBytes {
		return nil
	}
	var bl *block
	for _, r := range bs.recent {
		if r != nil && r.ti == ti {
			bl = r
			break
		}
	}
	if bl == nil {
		bl = bs.byType[ti]
		if bl == nil {
			if bs.byType == nil {
				bs.byType = map[*typeInfo]*block{}
			}
			bl = &block{ti: ti}
			bs.byType[ti] = bl
		}
		bs.recent[bs.next] = bl
		bs.next = (bs.next + 1) % len(bs.recent)
	}
	if bl.len-bl.next < n {
		m := 4 // a type met once or twice does not pay for a whole block
		if bl.len > 0 {
			m = min(2*bl.len, blockMax)
		}
		m = max(m, n)
		if m != bl.len || bl.arrType == nil {
			bl.arrType = reflect.ArrayOf(m, ti.t) // a lookup in reflect's cache that costs a few hundred instructions
		}
		bl.arr, bl.len, bl.next = reflect.New(bl.arrType).UnsafePointer(), m, 0
	}
	p := unsafe.Add(bl.arr, uintptr(bl.next)*size)
	bl.next += n
	return p
}

// sliceHeader is how a slice is laid out, as reflect.SliceHeader but with a pointer the GC sees.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// deref follows pointers, allocating the nil ones, from the blocks; the safe twin's is derefSafe.
func (b *builder) deref(v reflect.Value, shown bool) reflect.Value {
	if b.safe {
		return b.derefSafe(v, shown)
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			p := b.new.alloc(infoOf(v.Type().Elem()))
			if v.CanSet() {
				// The pointer stored as it is: a reflect.Value of it would cost more than the store.
				*(*unsafe.Pointer)(unsafe.Pointer(v.UnsafeAddr())) = p
			} else {
				v.Set(reflect.NewAt(v.Type().Elem(), p))
			}
			b.changed = b.changed || shown
		}
		v = v.Elem()
	}
	return v
}

// newElem returns a new zero value of ti's type, addressable, from the blocks; the safe twin's is
// reflect.New's.
func (b *builder) newElem(ti *typeInfo) reflect.Value {
	if b.safe {
		return reflect.New(ti.t).Elem()
	}
	return reflect.NewAt(ti.t, b.new.alloc(ti)).Elem()
}
