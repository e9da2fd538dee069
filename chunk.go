package infergate

import (
	"bytes"
	"encoding/json"
)

// ChatCompletionChunk is one event of a streamed answer. It marshals back to the wire's JSON, so it
// can be logged or proxied as the service sent it.
type ChatCompletionChunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"` // "chat.completion.chunk"
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	Choices           []ChunkChoice `json:"choices"`
	Usage             *Usage        `json:"usage,omitempty"` // usually on a last chunk with no choices
	SystemFingerprint string        `json:"system_fingerprint,omitempty"`
	UsageFromProvider *Usage        `json:"usage_from_provider,omitempty"`
	UsageFromConsumer *Usage        `json:"usage_from_consumer,omitempty"`
}

// Text returns the content delta of the first choice.
func (c ChatCompletionChunk) Text() string {
	if len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Delta.Content
}

// ChunkChoice is the part of a chunk that belongs to one choice.
type ChunkChoice struct {
	Index        int          `json:"index"`
	Delta        Delta        `json:"delta"`
	FinishReason FinishReason `json:"finish_reason,omitempty"` // set on the choice's last chunk
}

// Delta is what a chunk adds to a choice's message. Concatenating the deltas gives the message: the
// stream has already removed repeated ids and names and placeholder "{}" arguments, so that plain
// concatenation is right.
type Delta struct {
	Role      Role            `json:"role,omitempty"`
	Content   string          `json:"content,omitempty"`
	Refusal   string          `json:"refusal,omitempty"`
	ToolCalls []ToolCallDelta `json:"tool_calls,omitempty"`
}

// ToolCallDelta is a fragment of a tool call. Index tells which call of the choice it extends (the
// stream fills it in when the server left it out).
type ToolCallDelta struct {
	Index    int               `json:"index"`
	ID       string            `json:"id,omitempty"`
	Type     string            `json:"type,omitempty"`
	Function FunctionCallDelta `json:"function"`
}

// FunctionCallDelta is a fragment of a function call: the name once, then pieces of the arguments.
type FunctionCallDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
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
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason istr      `json:"finish_reason"`
}

type wireDelta struct {
	Role      istr           `json:"role"`
	Content   string         `json:"content"`
	Refusal   string         `json:"refusal"`
	ToolCalls []wireToolCall `json:"tool_calls"`
}

type wireToolCall struct {
	Index    optInt `json:"index"`
	ID       istr   `json:"id"`
	Type     istr   `json:"type"`
	Function struct {
		Name      istr   `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// reset prepares the buffer for the next chunk: fields the next chunk leaves out must read as
// absent, while the remembered strings stay for reuse.
func (w *wireChunk) reset() {
	w.ID.set, w.Object.set, w.Model.set, w.SystemFingerprint.set = false, false, false, false
	w.Created, w.Usage, w.UsageFromProvider, w.UsageFromConsumer, w.Error = 0, nil, nil, nil, nil
	all := w.Choices[:cap(w.Choices)]
	for i := range all {
		c := &all[i]
		c.Index, c.FinishReason.set = 0, false
		c.Delta.Role.set, c.Delta.Content, c.Delta.Refusal = false, "", ""
		calls := c.Delta.ToolCalls[:cap(c.Delta.ToolCalls)]
		for j := range calls {
			t := &calls[j]
			t.Index, t.ID.set, t.Type.set, t.Function.Name.set, t.Function.Arguments = optInt{}, false, false, false, ""
		}
		c.Delta.ToolCalls = c.Delta.ToolCalls[:0]
	}
	w.Choices = w.Choices[:0]
}

// public copies the decoded chunk into values the caller may keep.
func (w *wireChunk) public() ChatCompletionChunk {
	c := ChatCompletionChunk{
		ID: w.ID.get(), Object: w.Object.get(), Created: w.Created, Model: w.Model.get(),
		SystemFingerprint: w.SystemFingerprint.get(), Choices: make([]ChunkChoice, len(w.Choices)),
		Usage: w.Usage, UsageFromProvider: w.UsageFromProvider, UsageFromConsumer: w.UsageFromConsumer,
	}
	for i := range w.Choices {
		wc := &w.Choices[i]
		c.Choices[i] = ChunkChoice{
			Index:        wc.Index,
			FinishReason: FinishReason(wc.FinishReason.get()),
			Delta:        Delta{Role: Role(wc.Delta.Role.get()), Content: wc.Delta.Content, Refusal: wc.Delta.Refusal},
		}
	}
	return c
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
