package partialjson

import "reflect"

// blocks hands out new values of a type from arrays allocated several at a time, as reflect.New
// would one at a time: a value met hundreds of times (a pointer field in each element of a long
// array, the element a slice is built in) then costs one allocation per block rather than one
// each. A value handed out is never handed out again, so nothing else writes to it; it keeps its
// block alive as long as it lives, which the block's bound limits.
type blocks map[reflect.Type]*block

type block struct {
	arr  reflect.Value // an array of the type, addressable
	next int           // the first element not handed out
}

// blockMax bounds a block's length and blockBytes the size of a value it holds, so that a value
// kept keeps little else alive.
const (
	blockMax   = 64
	blockBytes = 128
)

// alloc returns a pointer to a new zero value of t, as reflect.New(t) does.
func (bs *blocks) alloc(t reflect.Type) reflect.Value {
	if t.Size() == 0 || t.Size() > blockBytes {
		return reflect.New(t)
	}
	if *bs == nil {
		*bs = blocks{}
	}
	bl := (*bs)[t]
	if bl == nil || bl.next == bl.arr.Len() {
		n := blockMax
		if bl == nil {
			n = 4 // a type met once or twice does not pay for a whole block
		} else if old := bl.arr.Len(); old < blockMax {
			n = min(2*old, blockMax)
		}
		bl = &block{arr: reflect.New(reflect.ArrayOf(n, t)).Elem()}
		(*bs)[t] = bl
	}
	v := bl.arr.Index(bl.next).Addr()
	bl.next++
	return v
}
