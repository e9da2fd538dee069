package infergate

import (
	"encoding/json"
	"strings"

	"github.com/infergate/infergate-go/internal/chunkmem"
	"github.com/infergate/infergate-go/internal/jsonscan"
)

// The strings of one decoded answer share memory: a completion's share one buffer as long as its
// body, a stream's are cut from blocks of a few KiB. Metadata (ids, model, fingerprint, roles,
// finish reasons, the ids, types and names of tool calls) is what programs keep once the text is
// gone, in logs, maps and caches, so it is cut from blocks of its own: keeping it keeps at most a
// few hundred bytes of other metadata, never text.

// commonMetadata are values that nearly every answer repeats; they are handed out as they are,
// without a copy.
var commonMetadata = [...]string{"assistant", "function", "stop", "tool_calls", "length", "chat.completion", "chat.completion.chunk"}

// Metadata blocks start small, for the usual answer's id and model, and double up to
// metadataBlock; a longer piece than metadataPiece gets memory of its own.
const (
	firstMetadataBlock = 64
	metadataBlock      = 256
	metadataPiece      = 64
)

// metadataMemory cuts metadata strings from its blocks, an allocation a block rather than a string.
type metadataMemory struct{ block strings.Builder }

// fromBytes returns b as a string that shares memory with no text.
func (m *metadataMemory) fromBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for _, common := range commonMetadata {
		if string(b) == common {
			return common
		}
	}
	if !m.room(len(b)) {
		return string(b)
	}
	start := m.block.Len()
	m.block.Write(b)
	return m.block.String()[start:]
}

// fromString returns s as a string that shares memory with no text.
func (m *metadataMemory) fromString(s string) string {
	if s == "" {
		return ""
	}
	for _, common := range commonMetadata {
		if s == common {
			return common
		}
	}
	if !m.room(len(s)) {
		return strings.Clone(s)
	}
	start := m.block.Len()
	m.block.WriteString(s)
	return m.block.String()[start:]
}

// room makes room for n bytes in the block, a new block when it is short; it reports false for a
// piece too long to be cut from one.
func (m *metadataMemory) room(n int) bool {
	if n > metadataPiece {
		return false
	}
	if m.block.Cap()-m.block.Len() < n {
		size := min(metadataBlock, max(firstMetadataBlock, 2*m.block.Cap()))
		m.block = strings.Builder{}
		m.block.Grow(size)
	}
	return true
}

// streamMemory is what a stream decodes its chunks with: the fast decoder, which reads the usual
// chunk shapes without reflection (encoding/json reads the rest), and blocks that the chunks'
// choices, tool calls and text are cut from (internal/chunkmem). The blocks make a content chunk
// cost a few hundredths of an allocation instead of two.
type streamMemory struct {
	fast    jsonscan.ChunkDecoder
	text    chunkmem.Text
	choices chunkmem.Lists[ChunkChoice]
	calls   chunkmem.Lists[ToolCallDelta]

	// The last role, finish_reason and tool call id, type and name, which repeat from chunk to
	// chunk: metadata, cut from memory of its own (see metadataMemory) once, not per chunk.
	role, finish, callID, callType, callName string
	meta                                     metadataMemory

	// What the chunk's id, object, model and system_fingerprint were last set or found equal to.
	id, object, model, fingerprint chunkmem.Memo

	// The usual chunk's one choice, as handed out, which spares the first chunk an allocation on
	// the way to the first delta.
	firstChoices [1]ChunkChoice
}

// The largest lists of choices and calls, with the 8-byte header the runtime puts before a block
// that holds pointers, fill the 5,376-byte size class: 35 choices of 152 bytes take 5,328 of it, 67
// calls of 80 bytes 5,368 (a round 32 or 64 would waste a tenth).
const (
	choiceBlock = 35
	callBlock   = 67
)

// prepare makes the first text block, while the model still works on the first delta.
func (m *streamMemory) prepare() { m.text.Prepare() }

// setTransient is set by a reader that keeps no chunk past the next one (a typed answer's own
// stream, which hands no chunk out): each chunk's lists then reuse the last one's memory.
func (m *streamMemory) setTransient() { m.choices.Transient, m.calls.Transient = true, true }

// decode decodes data into out through the fast decoder, writing only the fields that differ from
// the chunk out holds (a stream's chunks mostly repeat their id, model and role) and cutting the
// rest from the blocks. It reports false, leaving out as it was, when the chunk takes a shape the
// fast decoder leaves to encoding/json.
func (m *streamMemory) decode(data []byte, out *ChatCompletionChunk) bool {
	c, ok := m.fast.Decode(data)
	if !ok {
		return false
	}
	var usage, provider, consumer *Usage
	if c.Usage != nil || c.UsageFromProvider != nil || c.UsageFromConsumer != nil { // the last chunk's
		var ok1, ok2, ok3 bool
		usage, ok1 = chunkUsage(c.Usage)
		provider, ok2 = chunkUsage(c.UsageFromProvider)
		consumer, ok3 = chunkUsage(c.UsageFromConsumer)
		if !ok1 || !ok2 || !ok3 {
			return false
		}
	}
	choices := m.choiceList(len(c.Choices))
	for i := range c.Choices {
		if c.Choices[i].Logprobs != nil && !decodeRaw(c.Choices[i].Logprobs, &choices[i].Logprobs) {
			return false
		}
	}
	// The usual chunk repeats all four, which its memos settle without a call.
	gen := m.fast.Generation()
	if !m.id.Holds(c.ID.B, out.ID, gen) {
		m.setStr(&out.ID, c.ID, &m.id)
	}
	if !m.object.Holds(c.Object.B, out.Object, gen) {
		m.setStr(&out.Object, c.Object, &m.object)
	}
	if !m.model.Holds(c.Model.B, out.Model, gen) {
		m.setStr(&out.Model, c.Model, &m.model)
	}
	if !m.fingerprint.Holds(c.SystemFingerprint.B, out.SystemFingerprint, gen) {
		m.setStr(&out.SystemFingerprint, c.SystemFingerprint, &m.fingerprint)
	}
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
		out.Content = m.text.String(d.Content.B)
	}
	reasoning := d.ReasoningContent
	if len(reasoning) == 0 {
		reasoning = d.Reasoning
	}
	if len(reasoning) > 0 {
		out.Reasoning = m.text.String(reasoning)
	}
	if len(d.Refusal) > 0 {
		out.Refusal = m.text.String(d.Refusal)
	}
	if len(d.Extra) > 0 {
		out.Extra = fieldsOf(d.Extra, messageKeys)
	}
	if len(d.ToolCalls) == 0 {
		return
	}
	out.ToolCalls = m.callList(len(d.ToolCalls))
	for j := range d.ToolCalls {
		// The list comes zeroed: only what the fragment brings is stored. Most fragments bring
		// arguments alone.
		f, t := &d.ToolCalls[j], &out.ToolCalls[j]
		t.Index = -1
		if f.HasIndex {
			t.Index = f.Index
		}
		if len(f.ID.B) > 0 {
			t.ID = m.repeated(&m.callID, f.ID.B)
		}
		if len(f.Type.B) > 0 {
			t.Type = m.repeated(&m.callType, f.Type.B)
		}
		if len(f.Name.B) > 0 {
			t.Function.Name = m.repeated(&m.callName, f.Name.B)
		}
		if len(f.Arguments) > 0 {
			t.Function.Arguments = m.text.String(f.Arguments)
		}
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

// setStr sets *x to s, which the fast decoder read ("" when absent or null) and memo does not hold,
// keeping the string x holds when it is the same.
func (m *streamMemory) setStr(x *string, s jsonscan.Str, memo *chunkmem.Memo) {
	switch {
	case !s.Set || len(s.B) == 0:
		if *x != "" {
			*x = ""
		}
		return
	case string(s.B) != *x:
		*x = m.meta.fromBytes(s.B)
	}
	memo.Remember(s.B, *x, m.fast.Stamp(s.B))
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

// choiceList returns a list of n choices for one chunk, cut from a block when m is not nil.
func (m *streamMemory) choiceList(n int) []ChunkChoice {
	if m == nil {
		return make([]ChunkChoice, n)
	}
	// A chunk starts with its choices: the lists the chunk before it was cut are free again.
	m.choices.Free()
	m.calls.Free()
	list, reused := m.choices.Cut(n, choiceBlock, m.firstChoices[:])
	if reused {
		for i := range list {
			resetChoice(&list[i])
		}
	}
	return list
}

// callList returns a list of n tool-call fragments for one delta, cut from a block when m is not nil.
func (m *streamMemory) callList(n int) []ToolCallDelta {
	if m == nil {
		return make([]ToolCallDelta, n)
	}
	list, reused := m.calls.Cut(n, callBlock, nil)
	if reused {
		for i := range list {
			resetCall(&list[i])
		}
	}
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
