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
	// The usual list, from the block's room, without a call; storing the block's length rather
	// than its rest stores no pointer.
	if b := &l.block; !l.Transient && n <= len(b.mem)-b.used && n <= largest/4 {
		list = b.mem[b.used : b.used+n : b.used+n]
		b.used += n
		return list, false
	}
	return l.cut(n, largest, first)
}

func (l *Lists[T]) cut(n, largest int, first []T) (list []T, reused bool) {
	if l.Transient {
		return l.spare.cut(n), true
	}
	if l.block.mem == nil && first != nil {
		l.block.mem = first
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
	mem  []T // the last slice made
	used int // mem[:used] is handed out
}

func (b *block[T]) cut(n, largest int) []T {
	if n > largest/4 {
		return make([]T, n)
	}
	if len(b.mem)-b.used < n {
		b.mem, b.used = make([]T, min(largest, max(2*len(b.mem), n))), 0
	}
	list := b.mem[b.used : b.used+n : b.used+n]
	b.used += n
	return list
}
