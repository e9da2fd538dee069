package chunkmem

// Memo remembers that a string equalled the template text src of a decoder's generation gen (see
// jsonscan.ChunkDecoder.Stamp). Neither changes (strings never do; template text not within its
// generation), so that the same slice again in the same generation, beside the same string, means
// the same bytes: the repeated fields of a replayed chunk are then kept without comparing them.
type Memo struct {
	src *byte // the first byte of the template text
	n   int
	dst string
	gen uint64
}

// Holds reports whether dst is still the string remembered beside src, of generation gen. The zero
// Memo holds nothing.
//
// src is compared by the address of its first byte, and dst by value: a string compared with
// itself (the usual case: the field still holds what Remember saw) is settled by its address and
// length, without reading its bytes (see Equal).
func (m *Memo) Holds(src []byte, dst string, gen uint64) bool {
	return m.gen != 0 && gen == m.gen && len(src) == m.n && len(src) > 0 && &src[0] == m.src && Equal(dst, m.dst)
}

// Remember records that dst equals src, template text of generation gen; a gen of 0 (src lies
// elsewhere) forgets.
func (m *Memo) Remember(src []byte, dst string, gen uint64) {
	if gen == 0 || len(src) == 0 {
		*m = Memo{}
		return
	}
	*m = Memo{src: &src[0], n: len(src), dst: dst, gen: gen}
}
