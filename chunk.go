package infergate

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ChatCompletionChunk is one event of a streamed answer. It marshals back to the wire's JSON, so it
// can be logged or proxied as the service sent it, and json.Unmarshal reads the wire's JSON into it
// the same way the stream does (every content, reasoning and arguments spelling included), so that
// recorded or proxied chunks can be folded with a ChatAccumulator.
type ChatCompletionChunk struct {
	// ID is the completion's id, the same on every chunk of a stream.
	ID     string `json:"id"`
	Object string `json:"object"` // "chat.completion.chunk"
	// Created is when the completion was made, in Unix seconds.
	Created int64 `json:"created"`
	// Model is the model the provider used; it may differ from the one asked for.
	Model string `json:"model"`
	// Choices is empty on a usage-only chunk.
	Choices []ChunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"` // usually on a last chunk with no choices
	// SystemFingerprint names the provider's backend configuration; often empty.
	SystemFingerprint string `json:"system_fingerprint,omitempty"`
	// UsageFromProvider and UsageFromConsumer are the gateway's own token estimates, as on
	// ChatCompletion; the provider node's count is the one billed for a stream.
	UsageFromProvider *Usage `json:"usage_from_provider,omitempty"`
	UsageFromConsumer *Usage `json:"usage_from_consumer,omitempty"` // the consumer node's count; see ChatCompletion
}

// Text returns the content delta of the first choice.
func (c ChatCompletionChunk) Text() string {
	if len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Delta.Content
}

// Reasoning returns the reasoning delta of the first choice, for thinking models.
func (c ChatCompletionChunk) Reasoning() string {
	if len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Delta.Reasoning
}

// ToolCalls returns the tool-call fragments of the first choice; nil when there are none.
func (c ChatCompletionChunk) ToolCalls() []ToolCallDelta {
	if len(c.Choices) == 0 || len(c.Choices[0].Delta.ToolCalls) == 0 {
		return nil
	}
	return c.Choices[0].Delta.ToolCalls
}

// UnmarshalJSON reads a chunk as the stream does.
func (c *ChatCompletionChunk) UnmarshalJSON(b []byte) error {
	var w wireChunk
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = w.public(nil)
	return nil
}

// ChunkChoice is the part of a chunk that belongs to one choice.
type ChunkChoice struct {
	Index        int          `json:"index"`                   // which choice the delta extends, from 0
	Delta        Delta        `json:"delta"`                   // what this chunk adds to the choice's message
	FinishReason FinishReason `json:"finish_reason,omitempty"` // set on the choice's last chunk
	Logprobs     *Logprobs    `json:"logprobs,omitempty"`      // this delta's tokens, when asked for
}

// Delta is what a chunk adds to a choice's message. Concatenating the deltas gives the message: the
// stream has already removed repeated ids and names and placeholder "{}" arguments, so that plain
// concatenation is right.
type Delta struct {
	Role    Role   `json:"role,omitempty"`    // RoleAssistant, usually on a choice's first chunk only
	Content string `json:"content,omitempty"` // text, joined from text parts when content came as a list
	// Reasoning is the model's thinking, from "reasoning_content", "reasoning" or thinking parts.
	Reasoning string          `json:"reasoning_content,omitempty"`
	Refusal   string          `json:"refusal,omitempty"`    // a piece of the model's refusal, when it declines
	ToolCalls []ToolCallDelta `json:"tool_calls,omitempty"` // fragments of tool calls, told apart by their Index
	// Parts is the content list as received, when it held a part that is neither text nor thinking
	// (whose text is already in Content and Reasoning). It is nil for ordinary deltas.
	Parts []ContentPart `json:"-"`
	// Extra holds the delta's fields that it does not model, as received (OpenRouter's
	// "reasoning_details", say): the fragments of the message's Extra, which merge as RawFields says.
	Extra RawFields `json:"-"`
}

type plainDelta Delta

// MarshalJSON writes the delta's wire form, Extra's fields included.
func (d Delta) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainDelta(d))
	if err != nil {
		return nil, err
	}
	return withFields(b, d.Extra)
}

// ToolCallDelta is a fragment of a tool call. Index tells which call of the choice it extends. A
// fragment the server sent without an index has Index -1 until a ChatAccumulator resolves it; the
// chunks of a ChatStream are always resolved.
type ToolCallDelta struct {
	// Index is the call's position among the choice's calls, from 0; -1 until resolved.
	Index    int               `json:"index"`
	ID       string            `json:"id,omitempty"`   // the call's id, on its first fragment
	Type     string            `json:"type,omitempty"` // "function", on the call's first fragment
	Function FunctionCallDelta `json:"function"`       // the name and a piece of the arguments
	// Extra holds the fragment's fields that it does not model, as received (Gemini's
	// "extra_content"): the fragments of the call's Extra.
	Extra RawFields `json:"-"`
}

type plainToolCallDelta ToolCallDelta

// MarshalJSON writes the fragment's wire form, Extra's fields included.
func (t ToolCallDelta) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainToolCallDelta(t))
	if err != nil {
		return nil, err
	}
	return withFields(b, t.Extra)
}

// FunctionCallDelta is a fragment of a function call: the name once, then pieces of the arguments.
type FunctionCallDelta struct {
	Name      string `json:"name,omitempty"`      // the function's name, on the call's first fragment
	Arguments string `json:"arguments,omitempty"` // the next piece of the arguments' JSON text, to append
}

// The wire types below decode chunks into a buffer that lives as long as the stream. Strings that
// repeat from chunk to chunk (id, model, role...) are compared with the previous chunk's and reused,
// which keeps a content chunk to a couple of allocations.

type wireChunk struct {
	ID                istr            `json:"id"`
	Object            istr            `json:"object"`
	Created           int64           `json:"created"`
	Model             istr            `json:"model"`
	SystemFingerprint istr            `json:"system_fingerprint"`
	Choices           []wireChoice    `json:"choices"`
	Usage             *Usage          `json:"usage"`
	UsageFromProvider *Usage          `json:"usage_from_provider"`
	UsageFromConsumer *Usage          `json:"usage_from_consumer"`
	Error             json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        int        `json:"index"`
	Delta        wireDelta  `json:"delta"`
	Message      *wireDelta `json:"message"` // some servers send "message" where "delta" belongs
	FinishReason istr       `json:"finish_reason"`
	Logprobs     *Logprobs  `json:"logprobs"`
}

type wireDelta struct {
	Role       istr           `json:"role"`
	Content    wireContent    `json:"content"`
	Reasoning1 string         `json:"reasoning_content"`
	Reasoning2 string         `json:"reasoning"`
	Refusal    string         `json:"refusal"`
	ToolCalls  []wireToolCall `json:"tool_calls"`
	Extra      RawFields      `json:"-"`
}

type wireToolCall struct {
	Index    optInt `json:"index"`
	ID       istr   `json:"id"`
	Type     istr   `json:"type"`
	Function struct {
		Name      istr     `json:"name"`
		Arguments wireArgs `json:"arguments"`
	} `json:"function"`
	Extra RawFields `json:"-"`
}

// UnmarshalJSON reads the delta's modelled fields, then keeps the others. A value of the wrong
// type is no error here: the chunk's decoder goes on past it, as it does everywhere else.
func (d *wireDelta) UnmarshalJSON(b []byte) error {
	type plain wireDelta
	if err := json.Unmarshal(b, (*plain)(d)); err != nil && !isTypeError(err) {
		return err
	}
	d.Extra = unmodelled(b, messageKeys)
	return nil
}

// UnmarshalJSON is wireDelta's for a tool-call fragment.
func (t *wireToolCall) UnmarshalJSON(b []byte) error {
	type plain wireToolCall
	if err := json.Unmarshal(b, (*plain)(t)); err != nil && !isTypeError(err) {
		return err
	}
	t.Extra = unmodelled(b, toolCallKeys)
	return nil
}

// reset prepares the buffer for the next chunk: fields the next chunk leaves out must read as
// absent, while the remembered strings stay for reuse.
func (w *wireChunk) reset() {
	w.ID.set, w.Object.set, w.Model.set, w.SystemFingerprint.set = false, false, false, false
	w.Created, w.Usage, w.UsageFromProvider, w.UsageFromConsumer, w.Error = 0, nil, nil, nil, nil
	all := w.Choices[:cap(w.Choices)]
	for i := range all {
		c := &all[i]
		c.Index, c.FinishReason.set, c.Logprobs, c.Message = 0, false, nil, nil
		c.Delta.reset()
	}
	w.Choices = w.Choices[:0]
}

func (d *wireDelta) reset() {
	d.Role.set, d.Reasoning1, d.Reasoning2, d.Refusal, d.Extra = false, "", "", "", nil
	d.Content.reset()
	calls := d.ToolCalls[:cap(d.ToolCalls)]
	for j := range calls {
		t := &calls[j]
		t.Index, t.ID.set, t.Type.set, t.Function.Name.set, t.Function.Arguments = optInt{}, false, false, false, ""
		t.Extra = nil
	}
	d.ToolCalls = d.ToolCalls[:0]
}

// public copies the decoded chunk into values the caller may keep, with lists cut from a stream's
// blocks when mem is not nil.
func (w *wireChunk) public(mem *streamMemory) ChatCompletionChunk {
	c := ChatCompletionChunk{
		ID: w.ID.get(), Object: w.Object.get(), Created: w.Created, Model: w.Model.get(),
		SystemFingerprint: w.SystemFingerprint.get(), Choices: mem.choiceList(len(w.Choices)),
		Usage: w.Usage, UsageFromProvider: w.UsageFromProvider, UsageFromConsumer: w.UsageFromConsumer,
	}
	for i := range w.Choices {
		wc := &w.Choices[i]
		d := &wc.Delta
		if wc.Message != nil && d.empty() {
			d = wc.Message
		}
		c.Choices[i] = ChunkChoice{
			Index:        wc.Index,
			FinishReason: FinishReason(wc.FinishReason.get()),
			Logprobs:     wc.Logprobs,
			Delta:        d.public(mem),
		}
	}
	return c
}

// carriesAnswer reports whether the chunk brings choices or usage, which an error event may carry
// too.
func (w *wireChunk) carriesAnswer() bool {
	return len(w.Choices) > 0 || w.Usage != nil || w.UsageFromProvider != nil || w.UsageFromConsumer != nil
}

func (d *wireDelta) empty() bool {
	return !d.Role.set && d.Content.text == "" && d.Content.reasoning == "" && d.Content.parts == nil &&
		d.Reasoning1 == "" && d.Reasoning2 == "" && d.Refusal == "" && len(d.ToolCalls) == 0 && len(d.Extra) == 0
}

func (d *wireDelta) public(mem *streamMemory) Delta {
	out := Delta{
		Role: Role(d.Role.get()), Content: d.Content.text, Refusal: d.Refusal, Parts: d.Content.parts,
		Reasoning: joinReasoning(d.Reasoning1, d.Reasoning2, d.Content.reasoning), Extra: d.Extra,
	}
	if len(d.ToolCalls) > 0 {
		out.ToolCalls = mem.callList(len(d.ToolCalls))
		for j := range d.ToolCalls {
			t := &d.ToolCalls[j]
			index := -1
			if t.Index.set {
				index = t.Index.v
			}
			out.ToolCalls[j] = ToolCallDelta{Index: index, ID: t.ID.get(), Type: t.Type.get(),
				Function: FunctionCallDelta{Name: t.Function.Name.get(), Arguments: string(t.Function.Arguments)}, Extra: t.Extra}
		}
	}
	return out
}

// istr is a JSON string that remembers its last value, so that an identical value costs no
// allocation, and whether the last decoded object set it at all.
type istr struct {
	s   string
	set bool
}

func (x *istr) get() string {
	if x.set {
		return x.s
	}
	return ""
}

func (x *istr) UnmarshalJSON(b []byte) error {
	x.set = true
	switch {
	case len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0:
		if inner := b[1 : len(b)-1]; string(inner) != x.s {
			x.s = string(inner)
		}
	case string(b) == "null":
		x.set = false
	case b[0] == '"':
		return json.Unmarshal(b, &x.s)
	default: // a number or boolean where a string belongs: keep its text rather than fail the chunk
		x.s = string(b)
	}
	return nil
}

// optInt is a JSON integer that knows whether it was present: a tool-call fragment without an index
// means "the current call", not call 0 of a new list.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	n, neg := 0, false
	for i, ch := range b {
		switch {
		case i == 0 && ch == '-':
			neg = true
		case ch >= '0' && ch <= '9' && n < 1<<30:
			n = n*10 + int(ch-'0')
		default:
			return nil // not an integer: treat as absent rather than fail the chunk
		}
	}
	if neg {
		return nil
	}
	o.v, o.set = n, true
	return nil
}

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
