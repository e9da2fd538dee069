package chunkmem

// Text block sizes: blocks start small, so that a short stream (or the wait for the first delta)
// does not pay for a long one's, and double up to TextBlock; no piece larger than a quarter of it
// is cut from one.
const (
	firstTextBlock = 256
	TextBlock      = 4 << 10
)

// Text cuts strings from blocks, an allocation a block rather than a string. A string it hands out
// never changes: a block is only appended to within its capacity.
type Text struct{ block Builder }

// Prepare makes the first block. A stream calls it once its answer has begun, while the model still
// works on the first delta, rather than when that delta arrives.
func (t *Text) Prepare() { t.block.Grow(firstTextBlock) }

// String returns b as a string cut from a block.
func (t *Text) String(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > TextBlock/4:
		return string(b)
	}
	if t.block.Cap()-t.block.Len() < len(b) {
		size := min(TextBlock, max(firstTextBlock, 2*t.block.Cap(), len(b)))
		t.block = Builder{}
		t.block.Grow(size)
	}
	start := t.block.Len()
	t.block.Write(b)
	return t.block.Piece(start)
}
