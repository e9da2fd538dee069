package partialjson

import (
	"reflect"
	"unsafe"
)

// blocks hands out new values of a type from arrays allocated several at a time, as reflect.New
// would one at a time: a value met hundreds of times (a pointer field in each element of a long
// array, the element a slice is built in) then costs one allocation per block rather than one
// each. A value handed out is never handed out again, so nothing else writes to it; it keeps its
// block alive as long as it lives, which the block's bound limits.
type blocks struct {
	// recent: the blocks of the types met last, looked through before the map: a value mostly
	// needs one or two types, and comparing types costs less than hashing one.
	recent [4]*block
	next   int // the entry of recent replaced next
	byType map[reflect.Type]*block
}

type block struct {
	t    reflect.Type
	arr  unsafe.Pointer // an array of t
	len  int            // arr's
	next int            // the first element of arr not handed out
}

// blockMax bounds a block's length and blockBytes the size of a value it holds, so that a value
// kept keeps little else alive.
const (
	blockMax   = 64
	blockBytes = 128
)

// alloc returns a pointer to a new zero value of t, as reflect.New(t).UnsafePointer() does.
func (bs *blocks) alloc(t reflect.Type) unsafe.Pointer {
	size := t.Size()
	if size == 0 || size > blockBytes {
		return reflect.New(t).UnsafePointer()
	}
	var bl *block
	for _, r := range bs.recent {
		if r != nil && r.t == t {
			bl = r
			break
		}
	}
	if bl == nil {
		bl = bs.byType[t]
		if bl == nil {
			if bs.byType == nil {
				bs.byType = map[reflect.Type]*block{}
			}
			bl = &block{t: t}
			bs.byType[t] = bl
		}
		bs.recent[bs.next] = bl
		bs.next = (bs.next + 1) % len(bs.recent)
	}
	if bl.next == bl.len {
		n := 4 // a type met once or twice does not pay for a whole block
		if bl.len > 0 {
			n = min(2*bl.len, blockMax)
		}
		bl.arr, bl.len, bl.next = reflect.New(reflect.ArrayOf(n, t)).UnsafePointer(), n, 0
	}
	p := unsafe.Add(bl.arr, uintptr(bl.next)*size)
	bl.next++
	return p
}
