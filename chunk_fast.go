package infergate

import (
	"encoding/json"
	"strings"

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

	// The usual chunk's one choice, as decoded and as handed out, which spares the first chunk two
	// allocations on the way to the first delta.
	oneChoice    [1]wireChoice
	firstChoices [1]ChunkChoice
}

// Block sizes: blocks start small, so that a short stream (or the wait for the first delta) does
// not pay for a long one's, and double up to about 4 KiB each; no piece larger than a quarter of
// the largest block is cut from one.
const (
	firstTextBlock = 256
	textBlock      = 4 << 10
	choiceBlock    = 32
	callBlock      = 64
)

// prepare makes the first text block. A stream calls it once its answer has begun, while the model
// still works on the first delta, rather than when that delta arrives.
func (m *streamMemory) prepare() { m.text.Grow(firstTextBlock) }

// decodeFast fills w from data through the fast decoder; it reports false, leaving w to be reset,
// when the chunk takes a shape the fast decoder leaves to encoding/json.
func (m *streamMemory) decodeFast(data []byte, w *wireChunk) bool {
	c, ok := m.fast.Decode(data)
	if !ok {
		return false
	}
	m.setStr(&w.ID, c.ID)
	m.setStr(&w.Object, c.Object)
	m.setStr(&w.Model, c.Model)
	m.setStr(&w.SystemFingerprint, c.SystemFingerprint)
	w.Created = c.Created
	if !decodeRaw(c.Usage, &w.Usage) || !decodeRaw(c.UsageFromProvider, &w.UsageFromProvider) ||
		!decodeRaw(c.UsageFromConsumer, &w.UsageFromConsumer) {
		return false
	}
	if w.Choices == nil {
		w.Choices = m.oneChoice[:0]
	}
	w.Choices = resize(w.Choices, len(c.Choices))
	for i := range c.Choices {
		fc, wc := &c.Choices[i], &w.Choices[i]
		wc.Index = fc.Index
		m.setStr(&wc.FinishReason, fc.FinishReason)
		if !decodeRaw(fc.Logprobs, &wc.Logprobs) {
			return false
		}
		m.fillDelta(&wc.Delta, &fc.Delta)
		if fc.HasMessage {
			wc.Message = new(wireDelta)
			m.fillDelta(wc.Message, &fc.Message)
		}
	}
	return true
}

func (m *streamMemory) fillDelta(w *wireDelta, d *jsonscan.Delta) {
	m.setStr(&w.Role, d.Role)
	if d.Content.Set {
		w.Content.text = m.string(d.Content.B)
	}
	w.Reasoning1, w.Reasoning2, w.Refusal = m.string(d.ReasoningContent), m.string(d.Reasoning), m.string(d.Refusal)
	w.ToolCalls = resize(w.ToolCalls, len(d.ToolCalls))
	for j := range d.ToolCalls {
		f, t := &d.ToolCalls[j], &w.ToolCalls[j]
		t.Index = optInt{v: f.Index, set: f.HasIndex}
		m.setStr(&t.ID, f.ID)
		m.setStr(&t.Type, f.Type)
		m.setStr(&t.Function.Name, f.Name)
		t.Function.Arguments = wireArgs(m.string(f.Arguments))
	}
}

// decodeRaw decodes a value the fast decoder handed over whole; a value encoding/json would only
// partly read sends the chunk to the full decoder, which decides what stands.
func decodeRaw[T any](raw []byte, dst **T) bool {
	return raw == nil || json.Unmarshal(raw, dst) == nil
}

// resize sets a reset list's length, keeping its memory.
func resize[T any](list []T, n int) []T {
	if n <= cap(list) {
		return list[:n]
	}
	return append(list[:cap(list)], make([]T, n-cap(list))...)
}

// setStr sets x as the fast decoder read it, reusing the last value when it repeats and cutting a
// new one from the text block.
func (m *streamMemory) setStr(x *istr, s jsonscan.Str) {
	if !s.Set {
		return
	}
	x.set = true
	if string(s.B) != x.s {
		x.s = m.string(s.B)
	}
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
	return m.calls.cut(n, callBlock)
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
