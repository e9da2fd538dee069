//go:build !purego

package chunkmem

import "unsafe"

// Builder builds a text as strings.Builder does, and hands out its strings without a copy: bytes
// are only written past those already handed out, and a text that outgrows its memory moves to
// new memory, leaving the old as it was. Unlike strings.Builder's, an append that fits stores no
// pointer, only a length: while the collector marks, every pointer stored into the heap costs a
// write barrier, and a stream appends once a chunk. Do not copy a non-zero Builder.
//
// Its safe twin is builderSafe, a strings.Builder, which the purego tag selects and
// FuzzBuilderTwins holds it to.
type Builder struct{ buf []byte }

// Len returns the number of bytes written.
func (b *Builder) Len() int { return len(b.buf) }

// Cap returns the bytes the text holds room for.
func (b *Builder) Cap() int { return cap(b.buf) }

// Grow makes room for n more bytes, as strings.Builder's Grow does: twice the memory, and n,
// rounded up to the allocator's size, which append does.
func (b *Builder) Grow(n int) {
	if l := len(b.buf); cap(b.buf)-l < n {
		b.buf = append(b.buf[:l:l], make([]byte, 2*cap(b.buf)+n-l)...)[:l]
	}
}

// Write appends p; a text that outgrows its memory grows as append grows it, as strings.Builder's
// does.
func (b *Builder) Write(p []byte) {
	n := len(b.buf)
	if cap(b.buf)-n < len(p) {
		b.buf = append(b.buf, p...)
		return
	}
	b.buf = b.buf[:n+len(p)] // on its own, with no store of a pointer
	copy(b.buf[n:], p)
}

// WriteString appends s, as Write does.
func (b *Builder) WriteString(s string) {
	n := len(b.buf)
	if cap(b.buf)-n < len(s) {
		b.buf = append(b.buf, s...)
		return
	}
	b.buf = b.buf[:n+len(s)]
	copy(b.buf[n:], s)
}

// String returns the text.
func (b *Builder) String() string { return unsafe.String(unsafe.SliceData(b.buf), len(b.buf)) }

// Piece returns the text from start on.
func (b *Builder) Piece(start int) string {
	if start >= len(b.buf) {
		return ""
	}
	return unsafe.String(&b.buf[start], len(b.buf)-start)
}
