package typed

import (
	"reflect"
	"strings"

	"github.com/infergate/infergate-go/internal/schema"
)

// plainDecoder reads one JSON value from s into memory laid out as its plan says; its methods
// report false where json.Unmarshal has to take over. Strings without escapes are cut from s.
type plainDecoder struct {
	s      string
	i      int
	arena  []byte       // holds the strings with escapes; only appended to, it moves when full
	texts  usage        // of the arena
	allocs []plainAlloc // by plan id
	// check, when the pass also proves the value valid against a schema (checking), counts what
	// schema.Checker counts, to bound the validator's work as it does; it reads the parts decoded by
	// json.Unmarshal.
	check    schema.Checker
	checking bool
	// safe is set by the safe twin (decode_safe.go): strings with escapes are copied out of the
	// arena rather than viewed in it.
	safe bool
}

// plainAlloc hands out a plan's slices or pointees from blocks of elements. Every element is
// handed out once, zero: a slice being read grows at the top of the block, and is cut off it when
// it ends; one that fills the block goes on in scratch memory (spill), and is copied to a new
// block of its exact length when it ends (settle). busy marks a slice being read, for the values
// of recursive types, whose slices nest: an inner one gets a block of its own.
type plainAlloc struct {
	block     reflect.Value // a slice
	base      blockBase     // where block's elements start, for the unsafe twin
	used, cap int
	busy      bool
	usage
}

// usage sizes the blocks of an allocator from what it handed out in the text read so far,
// expecting the rest of the text to need as much for its length.
type usage struct {
	first  int // where in the text the first block was made
	handed int // elements or bytes handed out
}

// size returns the size of a new block for at least need more elements (bytes), of which
// inUse are handed out but not yet counted: what the rest of the text is expected to need, but
// at most four times what was handed out, nor more than the rest of the text could hold.
func (u *usage) size(d *plainDecoder, need, inUse, least int) int {
	handed, rest := u.handed+inUse, len(d.s)-d.i
	if handed == 0 {
		u.first = d.i
		return need + least
	}
	expected := int(float64(handed) * float64(rest) / float64(max(d.i-u.first, 1)))
	return need + max(0, min(expected+expected/8+least, rest/2+1, 4*handed+least))
}

// maxPlainDepth bounds nesting as encoding/json does, whose limit is far above it.
const maxPlainDepth = 1000

// newBlock makes a's block one of at least need elements; inUse are the elements of a slice
// being read, which the caller moves to it.
func (d *plainDecoder) newBlock(a *plainAlloc, p *plainPlan, need, inUse int) {
	c := a.size(d, need, inUse, 4)
	a.block = reflect.MakeSlice(p.block, c, c)
	a.base, a.used, a.cap = baseOf(a.block), 0, c
}

// scratchBlock is memory a slice is read into once it has outgrown its allocator's block; it is
// taken from its plan's pool and given back zero, so that a long slice is made once, at its exact
// length, rather than moved to ever larger blocks as it grows.
type scratchBlock struct {
	block reflect.Value // a slice
	base  blockBase     // where block's elements start, for the unsafe twin
	cap   int
}

// maxPooledScratch bounds, in bytes, the scratch memory a pool keeps for the next slices.
const maxPooledScratch = 256 << 10

// spill makes room in scratch memory for a slice being read that holds n elements and has no room
// for one more: the first time (s nil), its elements are moved there from the top of a's block (at
// start), which is zero again after; later, s is replaced by a larger one.
func spill(a *plainAlloc, p *plainPlan, s *scratchBlock, start, n int) *scratchBlock {
	if s != nil {
		larger := newScratch(p, 2*s.cap)
		reflect.Copy(larger.block, s.block.Slice(0, n))
		return larger
	}
	s, _ = p.scratch.Get().(*scratchBlock)
	if s == nil || s.cap <= n {
		last := int(p.spilled.Load())
		s = newScratch(p, max(2*n, 16, last+last/8))
	}
	from := a.block.Slice(start, start+n)
	reflect.Copy(s.block, from)
	from.Clear()
	return s
}

func newScratch(p *plainPlan, n int) *scratchBlock {
	block := reflect.MakeSlice(p.block, n, n)
	return &scratchBlock{block: block, base: baseOf(block), cap: n}
}

// settle copies the n elements of a slice read in s to a new block of a's, and returns where they
// start in it (a spilled slice did not fit in the block it started in); s goes back to its pool,
// zero.
func (d *plainDecoder) settle(a *plainAlloc, p *plainPlan, s *scratchBlock, n int) int {
	d.newBlock(a, p, n, n)
	read := s.block.Slice(0, n)
	reflect.Copy(a.block, read)
	read.Clear()
	if uintptr(s.cap)*p.elem.size <= maxPooledScratch {
		p.scratch.Put(s)
		p.spilled.Store(int64(n))
	}
	return 0
}

func (d *plainDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *plainDecoder) end() bool {
	d.space()
	return d.i == len(d.s)
}

// next skips spaces and returns the next byte, 0 at the end.
func (d *plainDecoder) next() byte {
	if d.i < len(d.s) && d.s[d.i] > ' ' {
		return d.s[d.i]
	}
	d.space()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

func (d *plainDecoder) literal(word string) bool {
	if strings.HasPrefix(d.s[d.i:], word) {
		d.i += len(word)
		return true
	}
	return false
}

// field finds a struct's field by its exact name, looking first where the last one met leaves off.
func (p *plainPlan) field(key string, next int) int {
	if next < len(p.fields) && p.fields[next].name == key {
		return next
	}
	for i := range p.fields {
		if p.fields[i].name == key {
			return i
		}
	}
	return -1
}

// nextField reads a key and its colon, and returns its field's index; -1 when no field has that
// exact name. The field after the last one met (fields come in their order, mostly) is looked
// for first as `"name":` in the text itself: its name has no characters escapes would stand for.
func (d *plainDecoder) nextField(p *plainPlan, next int) int {
	if next < len(p.fields) && strings.HasPrefix(d.s[d.i:], p.fields[next].key) {
		d.i += len(p.fields[next].key)
		return next
	}
	if d.next() != '"' {
		return -1
	}
	key, ok := d.str()
	if !ok || d.next() != ':' {
		return -1
	}
	d.i++
	return p.field(key, next)
}

// otherText passes over a value json.Unmarshal decodes on its own text, which it returns the
// start of; when checking, the Checker reads it.
func (d *plainDecoder) otherText(p *plainPlan, depth int) (int, bool) {
	start := d.i
	if d.checking {
		d.check.Pos = start
		if !d.check.Value(p.node, int64(depth)) {
			return start, false
		}
		d.i = d.check.Pos
		return start, true
	}
	return start, d.skip(depth)
}

// members reads an object's members, handing each key to member, which reads the value.
func (d *plainDecoder) members(member func(key string) bool) bool {
	d.i++
	if d.next() == '}' {
		d.i++
		return true
	}
	for {
		if d.next() != '"' {
			return false
		}
		key, ok := d.str()
		if !ok || d.next() != ':' {
			return false
		}
		d.i++
		if !member(key) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}
