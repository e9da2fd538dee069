package jsonscan

// The chat completion chunk decoder. The fast path takes:
//   - the chunk's "id", "object", "model" and "system_fingerprint" as strings or null, "created"
//     as an integer or null, "choices" as a list of objects or null, "error" only as null;
//   - "usage", "usage_from_provider", "usage_from_consumer" and a choice's "logprobs" as any value,
//     handed over as raw JSON for the caller to decode;
//   - a choice's "index" as an integer or null, "finish_reason" as a string or null, "delta" and
//     "message" as objects or null;
//   - a delta's "role", "content", "reasoning_content", "reasoning" and "refusal" as strings or
//     null, "tool_calls" as a list of objects or null;
//   - a tool call's "index" as a non-negative integer or null, "id" and "type" as strings or null,
//     "function" as an object or null with "name" and "arguments" as strings or null;
//   - any other key, whose value is validated and skipped (the caller keeps the raw event).
//
// Anything else is declined: content as a list of parts, arguments as an object, a value of an
// unexpected type, a duplicate key, a key that matches a known one only without regard to case, a
// lone surrogate escape or invalid UTF-8 in a string, anything after the object.

// Str is a string of a chunk: Set is false when the key was absent or null. B aliases the input or
// the decoder's buffer and is valid until the next Decode.
type Str struct {
	B   []byte
	Set bool
}

// Chunk is one decoded chunk. Raw holds the JSON text of values the caller decodes itself, nil
// when absent or null. It is valid until the next Decode.
type Chunk struct {
	ID, Object, Model, SystemFingerprint Str
	Created                              int64
	Choices                              []Choice
	Usage, UsageFromProvider             []byte
	UsageFromConsumer                    []byte
}

// Choice is one entry of a chunk's "choices".
type Choice struct {
	Index        int
	Delta        Delta
	Message      Delta
	HasMessage   bool // "message" came, as an object, where "delta" belongs
	FinishReason Str
	Logprobs     []byte
}

// Delta is what a choice adds. Content is Set only for string content.
type Delta struct {
	Role, Content                        Str
	ReasoningContent, Reasoning, Refusal []byte
	ToolCalls                            []ToolCall
}

// ToolCall is one fragment of a tool call; HasIndex is false when "index" was absent or null.
type ToolCall struct {
	Index     int
	HasIndex  bool
	ID, Type  Str
	Name      Str
	Arguments []byte
}

// ChunkDecoder decodes chat completion chunks, reusing its memory from one chunk to the next.
// The zero value is ready to use.
type ChunkDecoder struct {
	s scanner
	c Chunk
}

var (
	chunkKeys    = []string{"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "usage_from_provider", "usage_from_consumer", "error"}
	choiceKeys   = []string{"index", "delta", "message", "finish_reason", "logprobs"}
	deltaKeys    = []string{"role", "content", "reasoning_content", "reasoning", "refusal", "tool_calls"}
	toolCallKeys = []string{"index", "id", "type", "function"}
	functionKeys = []string{"name", "arguments"}
)

// Decode reads one chunk's JSON text. It returns false when the text leaves the fast path; the
// caller then decodes it with encoding/json.
func (d *ChunkDecoder) Decode(data []byte) (*Chunk, bool) {
	s := &d.s
	s.reset(data)
	c := &d.c
	choices := c.Choices[:0]
	*c = Chunk{}
	var seen uint16
	ok := s.object(func(key []byte) bool {
		bit, known := keyBit(key, chunkKeys)
		if !known {
			return s.unknown(key, chunkKeys)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch string(key) {
		case "id":
			return s.optStr(&c.ID)
		case "object":
			return s.optStr(&c.Object)
		case "model":
			return s.optStr(&c.Model)
		case "system_fingerprint":
			return s.optStr(&c.SystemFingerprint)
		case "created":
			if s.null() {
				return true
			}
			n, ok := s.integer(18)
			c.Created = n
			return ok
		case "choices":
			return s.null() || s.array(func() bool {
				choices = grow(choices)
				return s.choice(&choices[len(choices)-1])
			})
		case "usage":
			return s.optRaw(&c.Usage)
		case "usage_from_provider":
			return s.optRaw(&c.UsageFromProvider)
		case "usage_from_consumer":
			return s.optRaw(&c.UsageFromConsumer)
		default: // "error": a chunk that carries one goes to the full decoder
			return s.null()
		}
	})
	c.Choices = choices
	return c, ok && s.end()
}

// grow extends a list by one element, reusing the memory of earlier chunks; the element's own
// decoder clears it.
func grow[T any](list []T) []T {
	if len(list) < cap(list) {
		return list[:len(list)+1]
	}
	var zero T
	return append(list, zero)
}

// keyBit finds key among known and returns its bit for duplicate detection.
func keyBit(key []byte, known []string) (uint16, bool) {
	for i, k := range known {
		if string(key) == k {
			return 1 << i, true
		}
	}
	return 0, false
}

func (s *scanner) optStr(dst *Str) bool {
	if s.null() {
		return true
	}
	b, ok := s.str()
	*dst = Str{B: b, Set: true}
	return ok
}

// plainStr reads a string or null into a field where null leaves the empty string.
func (s *scanner) plainStr(dst *[]byte) bool {
	if s.null() {
		return true
	}
	b, ok := s.str()
	*dst = b
	return ok
}

func (s *scanner) optRaw(dst *[]byte) bool {
	if s.null() {
		return true
	}
	b, ok := s.raw()
	*dst = b
	return ok
}

func (s *scanner) choice(ch *Choice) bool {
	calls, msgCalls := ch.Delta.ToolCalls[:0], ch.Message.ToolCalls[:0]
	*ch = Choice{}
	ch.Delta.ToolCalls, ch.Message.ToolCalls = calls, msgCalls
	var seen uint16
	return s.object(func(key []byte) bool {
		bit, known := keyBit(key, choiceKeys)
		if !known {
			return s.unknown(key, choiceKeys)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch string(key) {
		case "index":
			if s.null() {
				return true
			}
			n, ok := s.integer(9)
			ch.Index = int(n)
			return ok
		case "delta":
			return s.null() || s.delta(&ch.Delta)
		case "message":
			if s.null() {
				return true
			}
			ch.HasMessage = true
			return s.delta(&ch.Message)
		case "finish_reason":
			return s.optStr(&ch.FinishReason)
		default: // "logprobs"
			return s.optRaw(&ch.Logprobs)
		}
	})
}

func (s *scanner) delta(d *Delta) bool {
	calls := d.ToolCalls[:0]
	var seen uint16
	ok := s.object(func(key []byte) bool {
		bit, known := keyBit(key, deltaKeys)
		if !known {
			return s.unknown(key, deltaKeys)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch string(key) {
		case "role":
			return s.optStr(&d.Role)
		case "content":
			return s.optStr(&d.Content)
		case "reasoning_content":
			return s.plainStr(&d.ReasoningContent)
		case "reasoning":
			return s.plainStr(&d.Reasoning)
		case "refusal":
			return s.plainStr(&d.Refusal)
		default: // "tool_calls"
			return s.null() || s.array(func() bool {
				calls = grow(calls)
				return s.toolCall(&calls[len(calls)-1])
			})
		}
	})
	d.ToolCalls = calls
	return ok
}

func (s *scanner) toolCall(t *ToolCall) bool {
	*t = ToolCall{}
	var seen uint16
	return s.object(func(key []byte) bool {
		bit, known := keyBit(key, toolCallKeys)
		if !known {
			return s.unknown(key, toolCallKeys)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch string(key) {
		case "index":
			if s.null() {
				return true
			}
			if s.peek() == '-' {
				return false
			}
			n, ok := s.integer(9)
			t.Index, t.HasIndex = int(n), true
			return ok
		case "id":
			return s.optStr(&t.ID)
		case "type":
			return s.optStr(&t.Type)
		default: // "function"
			return s.null() || s.function(t)
		}
	})
}

func (s *scanner) function(t *ToolCall) bool {
	var seen uint16
	return s.object(func(key []byte) bool {
		bit, known := keyBit(key, functionKeys)
		if !known {
			return s.unknown(key, functionKeys)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if string(key) == "name" {
			return s.optStr(&t.Name)
		}
		return s.plainStr(&t.Arguments)
	})
}
