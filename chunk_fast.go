package infergate

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/infergate/infergate-go/internal/jsonscan"
)

// streamMemory is what a stream decodes its chunks with: the fast decoder, which reads the usual
// chunk shapes without reflection (encoding/json reads the rest), and blocks that the chunks'
// choices, tool calls and text are cut from. The blocks make a content chunk cost a few hundredths
// of an allocation instead of two; each piece handed out belongs to its chunk alone (the lists are
// capped, the strings never change), and a full block stays alive while a chunk cut from it does.
type streamMemory struct {
	fast    jsonscan.ChunkDecoder
	text    strings.Builder
	choices block[ChunkChoice]
	calls   block[ToolCallDelta]

	// The last role, finish_reason and tool call id, type and name, which repeat from chunk to
	// chunk: metadata, cut from memory of its own (see metadataMemory) once, not per chunk.
	role, finish, callID, callType, callName string
	meta                                     metadataMemory

	// What the chunk's id, object, model and system_fingerprint were last set or found equal to.
	id, object, model, fingerprint strMemo

	// The usual chunk's one choice, as handed out, which spares the first chunk an allocation on
	// the way to the first delta.
	firstChoices [1]ChunkChoice

	// transient is set by a reader that keeps no chunk past the next one (a typed answer's own
	// stream, which hands no chunk out): each chunk's lists then reuse the last one's memory.
	transient    bool
	spareChoices spare[ChunkChoice]
	spareCalls   spare[ToolCallDelta]
}

// Block sizes: blocks start small, so that a short stream (or the wait for the first delta) does
// not pay for a long one's, and double up to about 5 KiB each; no piece larger than a quarter of
// the largest block is cut from one. The largest lists of choices and calls, with the 8-byte header
// the runtime puts before a block that holds pointers, fill the 5,376-byte size class: 35 choices
// of 152 bytes take 5,328 of it, 67 calls of 80 bytes 5,368 (a round 32 or 64 would waste a tenth).
const (
	firstTextBlock = 256
	textBlock      = 4 << 10
	choiceBlock    = 35
	callBlock      = 67
)

// prepare makes the first text block. A stream calls it once its answer has begun, while the model
// still works on the first delta, rather than when that delta arrives.
func (m *streamMemory) prepare() { m.text.Grow(firstTextBlock) }

// decode decodes data into out through the fast decoder, writing only the fields that differ from
// the chunk out holds (a stream's chunks mostly repeat their id, model and role) and cutting the
// rest from the blocks. It reports false, leaving out as it was, when the chunk takes a shape the
// fast decoder leaves to encoding/json.
func (m *streamMemory) decode(data []byte, out *ChatCompletionChunk) bool {
	c, ok := m.fast.Decode(data)
	if !ok {
		return false
	}
	usage, ok1 := chunkUsage(c.Usage)
	provider, ok2 := chunkUsage(c.UsageFromProvider)
	consumer, ok3 := chunkUsage(c.UsageFromConsumer)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	choices := m.choiceList(len(c.Choices))
	for i := range c.Choices {
		if !decodeRaw(c.Choices[i].Logprobs, &choices[i].Logprobs) {
			return false
		}
	}
	m.setStr(&out.ID, c.ID, &m.id)
	m.setStr(&out.Object, c.Object, &m.object)
	m.setStr(&out.Model, c.Model, &m.model)
	m.setStr(&out.SystemFingerprint, c.SystemFingerprint, &m.fingerprint)
	out.Created = c.Created
	if usage != nil || provider != nil || consumer != nil || out.Usage != nil || out.UsageFromProvider != nil ||
		out.UsageFromConsumer != nil { // most chunks have none, before and now: no store into the heap
		out.Usage, out.UsageFromProvider, out.UsageFromConsumer = usage, provider, consumer
	}
	out.Choices = choices
	for i := range c.Choices {
		fc, pc := &c.Choices[i], &out.Choices[i]
		pc.Index = fc.Index
		if fc.FinishReason.Set && len(fc.FinishReason.B) > 0 {
			pc.FinishReason = FinishReason(m.repeated(&m.finish, fc.FinishReason.B))
		}
		d := &fc.Delta
		if fc.HasMessage && emptyDelta(d) {
			d = &fc.Message
		}
		m.fillDelta(&pc.Delta, d)
	}
	return true
}

// emptyDelta tells a delta that adds nothing, which a "message" sent beside it replaces.
func emptyDelta(d *jsonscan.Delta) bool {
	return !d.Role.Set && len(d.Content.B) == 0 && len(d.ReasoningContent) == 0 && len(d.Reasoning) == 0 &&
		len(d.Refusal) == 0 && len(d.ToolCalls) == 0 && len(fieldsOf(d.Extra, messageKeys)) == 0
}

// fillDelta fills out, fresh from a block, from d: "reasoning_content" wins over "reasoning".
func (m *streamMemory) fillDelta(out *Delta, d *jsonscan.Delta) {
	if d.Role.Set && len(d.Role.B) > 0 {
		out.Role = Role(m.repeated(&m.role, d.Role.B))
	}
	if len(d.Content.B) > 0 {
		out.Content = m.string(d.Content.B)
	}
	reasoning := d.ReasoningContent
	if len(reasoning) == 0 {
		reasoning = d.Reasoning
	}
	if len(reasoning) > 0 {
		out.Reasoning = m.string(reasoning)
	}
	if len(d.Refusal) > 0 {
		out.Refusal = m.string(d.Refusal)
	}
	if len(d.Extra) > 0 {
		out.Extra = fieldsOf(d.Extra, messageKeys)
	}
	if len(d.ToolCalls) == 0 {
		return
	}
	out.ToolCalls = m.callList(len(d.ToolCalls))
	for j := range d.ToolCalls {
		f, t := &d.ToolCalls[j], &out.ToolCalls[j]
		t.Index = -1
		if f.HasIndex {
			t.Index = f.Index
		}
		t.ID, t.Type = m.repeated(&m.callID, f.ID.B), m.repeated(&m.callType, f.Type.B)
		t.Function.Name, t.Function.Arguments = m.repeated(&m.callName, f.Name.B), m.string(f.Arguments)
		if len(f.Extra) > 0 {
			t.Extra = fieldsOf(f.Extra, toolCallKeys)
		}
	}
}

// chunkUsage decodes usage the fast decoder handed over whole; nil when there was none.
func chunkUsage(raw []byte) (*Usage, bool) {
	if raw == nil {
		return nil, true
	}
	var u *Usage
	return u, decodeRaw(raw, &u)
}

// decodeRaw decodes a value the fast decoder handed over whole; a value encoding/json would only
// partly read sends the chunk to the full decoder, which decides what stands.
func decodeRaw[T any](raw []byte, dst **T) bool {
	return raw == nil || json.Unmarshal(raw, dst) == nil
}

// strMemo remembers that the string at dst equalled the template text at src, of generation gen.
// Neither changes (strings never do; template text not within its generation), so that the same
// slices again in the same generation mean the same bytes: the repeated fields of a replayed
// chunk are then kept without comparing them.
type strMemo struct {
	src, dst *byte
	n, xn    int
	gen      uint64
}

// setStr sets *x to s, which the fast decoder read ("" when absent or null), keeping the string x
// holds when it is the same.
func (m *streamMemory) setStr(x *string, s jsonscan.Str, memo *strMemo) {
	// A zero memo matches only an empty s and an empty *x, which stay as they are.
	if unsafe.SliceData(s.B) == memo.src && unsafe.StringData(*x) == memo.dst && len(s.B) == memo.n &&
		len(*x) == memo.xn && m.fast.Generation() == memo.gen {
		return
	}
	m.resetStr(x, s, memo)
}

// resetStr is setStr without the memo's shortcut; it remembers what it found for the next chunk.
func (m *streamMemory) resetStr(x *string, s jsonscan.Str, memo *strMemo) {
	switch {
	case !s.Set || len(s.B) == 0:
		if *x != "" {
			*x = ""
		}
		return
	case string(s.B) != *x:
		*x = m.meta.fromBytes(s.B)
	}
	if gen := m.fast.Stamp(s.B); gen != 0 {
		*memo = strMemo{unsafe.SliceData(s.B), unsafe.StringData(*x), len(s.B), len(*x), gen}
	}
}

// repeated returns metadata b as a string of its own, the one last kept in *last when it is the
// same; an empty b leaves *last for the next chunk that brings one.
func (m *streamMemory) repeated(last *string, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if string(b) != *last {
		*last = m.meta.fromBytes(b)
	}
	return *last
}

// string returns b as a string cut from the text block.
func (m *streamMemory) string(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > textBlock/4:
		return string(b)
	}
	if m.text.Cap()-m.text.Len() < len(b) {
		size := min(textBlock, max(firstTextBlock, 2*m.text.Cap(), len(b)))
		m.text = strings.Builder{}
		m.text.Grow(size)
	}
	start := m.text.Len()
	m.text.Write(b)
	return m.text.String()[start:]
}

// choiceList returns a list of n choices for one chunk, cut from a block when m is not nil.
func (m *streamMemory) choiceList(n int) []ChunkChoice {
	if m == nil {
		return make([]ChunkChoice, n)
	}
	if m.transient {
		// A chunk starts with its choices: the lists the chunk before it was cut are free again.
		m.spareChoices.free()
		m.spareCalls.free()
		list := m.spareChoices.cut(n)
		for i := range list {
			resetChoice(&list[i])
		}
		return list
	}
	if m.choices.size == 0 { // the first block is the one inside m
		m.choices.free, m.choices.size = m.firstChoices[:], len(m.firstChoices)
	}
	return m.choices.cut(n, choiceBlock)
}

// callList returns a list of n tool-call fragments for one delta, cut from a block when m is not nil.
func (m *streamMemory) callList(n int) []ToolCallDelta {
	if m == nil {
		return make([]ToolCallDelta, n)
	}
	if m.transient {
		list := m.spareCalls.cut(n)
		for i := range list {
			resetCall(&list[i])
		}
		return list
	}
	return m.calls.cut(n, callBlock)
}

// spare is the memory of one chunk's lists, cut in turn as a block's are and freed for the next
// chunk. Its lists hold what the last chunk left in them.
type spare[T any] struct {
	list []T
	used int
}

func (s *spare[T]) free() { s.used = 0 }

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

// resetChoice zeroes a reused choice field by field, storing only into the fields that hold
// something: while the collector marks, each pointer store costs a write barrier, and clearing
// the whole struct would store into all of them.
func resetChoice(c *ChunkChoice) {
	c.Index = 0
	d := &c.Delta
	resetString(&d.Role)
	resetString(&d.Content)
	resetString(&d.Reasoning)
	resetString(&d.Refusal)
	if d.ToolCalls != nil {
		d.ToolCalls = nil
	}
	if d.Parts != nil {
		d.Parts = nil
	}
	if d.Extra != nil {
		d.Extra = nil
	}
	resetString(&c.FinishReason)
	if c.Logprobs != nil {
		c.Logprobs = nil
	}
}

// resetCall is resetChoice for a tool-call fragment.
func resetCall(t *ToolCallDelta) {
	t.Index = 0
	resetString(&t.ID)
	resetString(&t.Type)
	resetString(&t.Function.Name)
	resetString(&t.Function.Arguments)
	if t.Extra != nil {
		t.Extra = nil
	}
}

func resetString[S ~string](s *S) {
	if *s != "" {
		*s = ""
	}
}

// block hands out lists cut from one slice, each capped so that it is its chunk's alone. Its slices
// start with one element and double up to largest.
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
