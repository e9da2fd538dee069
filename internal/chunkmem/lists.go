package chunkmem

// Lists hands out the lists of one kind (choices, tool-call fragments) that a stream's chunks hold.
// The zero value cuts them from blocks that start with one element and double up to the largest
// size given to Cut: each list belongs to its chunk alone, and a full block stays alive while a
// chunk cut from it does. A transient Lists, whose caller keeps no chunk past the next one, reuses
// one chunk's memory for the next (see Free).
type Lists[T any] struct {
	Transient bool
	block     block[T]
	spare     spare[T]
}

// Cut returns a list of n elements for one chunk, capped. first, when not nil, is the memory of the
// first block (a caller's own array, which spares a stream's first chunk an allocation). A list cut
// from a transient Lists holds what the last chunk left in it: reused is then true, and the caller
// resets its elements.
func (l *Lists[T]) Cut(n, largest int, first []T) (list []T, reused bool) {
	if l.Transient {
		return l.spare.cut(n), true
	}
	if l.block.size == 0 && first != nil {
		l.block.free, l.block.size = first, len(first)
	}
	return l.block.cut(n, largest), false
}

// Free makes the memory of a transient Lists' lists free again, for the next chunk.
func (l *Lists[T]) Free() { l.spare.used = 0 }

// spare is the memory of one chunk's lists, cut in turn as a block's are and freed for the next
// chunk. Its lists hold what the last chunk left in them.
type spare[T any] struct {
	list []T
	used int
}

// cut returns the next n elements, capped, so that appending to them never writes into the next
// list. When the memory is short, a larger one is made; the lists cut before keep the old one.
func (s *spare[T]) cut(n int) []T {
	if s.used+n > len(s.list) {
		s.list, s.used = make([]T, max(2*len(s.list), n)), 0
	}
	list := s.list[s.used : s.used+n : s.used+n]
	s.used += n
	return list
}

// block hands out lists cut from one slice, each capped so that it is its chunk's alone. Its slices
// start with one element and double up to largest; no list over a quarter of largest is cut from
// one.
type block[T any] struct {
	free []T
	size int // the length of the last slice made
}

func (b *block[T]) cut(n, largest int) []T {
	if n > largest/4 {
		return make([]T, n)
	}
	if len(b.free) < n {
		b.size = min(largest, max(2*b.size, n))
		b.free = make([]T, b.size)
	}
	list := b.free[:n:n]
	b.free = b.free[n:]
	return list
}
