package jsonscan

import "bytes"

// Str is a string of a chunk: Set is false when the key was absent or null. B aliases the input or
// the decoder's buffer and is valid until the next Decode.
type Str struct {
	B   []byte
	Set bool
}

// Chunk is one decoded chunk, valid until the next Decode. The usage fields hold the JSON text of
// values the caller decodes itself, nil when absent or null.
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
	Logprobs     []byte // JSON text, as the usage fields
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
//
// It takes:
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
//
// The chunks of a stream mostly open with the same bytes, up to the value of "choices": from the
// second chunk on, the decoder keeps a copy of that opening and what it decoded to, and skips it
// when the next chunk opens alike. The decoder's state there depends on those bytes alone, so the result is the same.
type ChunkDecoder struct {
	s       scanner
	c       Chunk
	opening []byte    // the last chunk's text up to the value of "choices", empty when not kept
	head    Chunk     // what opening decodes to, its strings pointing into opening
	seen    uint16    // the keys of opening
	spans   [4][2]int // where the text of the chunk's four strings lies, for keep
	began   bool      // a chunk was read before: the first is not kept, which spares the first delta

	// Room for the usual chunk, one choice and an opening of ordinary length, which spares the
	// first chunk, on the way to the first delta, two allocations.
	oneChoice  [1]Choice
	openingBuf [256]byte
}

// Decode reads one chunk's JSON text. It returns false when the text leaves the fast path; the
// caller then decodes it with encoding/json.
func (d *ChunkDecoder) Decode(data []byte) (*Chunk, bool) {
	s := &d.s
	s.reset(data)
	choices := d.c.Choices[:0]
	if choices == nil {
		choices = d.oneChoice[:0]
	}
	var seen uint16
	resume := len(d.opening) > 0 && bytes.HasPrefix(data, d.opening)
	if resume {
		d.c, seen, s.i = d.head, d.seen, len(d.opening)
	} else {
		d.c = Chunk{}
		if !s.eat('{') {
			return nil, false
		}
		if s.eat('}') {
			return &d.c, s.end()
		}
	}
	for {
		var key []byte
		if resume {
			key, resume = []byte("choices"), false
		} else {
			var ok bool
			if key, ok = s.str(); !ok || !s.eat(':') {
				return nil, false
			}
			if string(key) == "choices" && d.began {
				d.keep(seen)
			}
		}
		if !d.field(key, &seen, &choices) {
			return nil, false
		}
		if s.eat('}') {
			break
		}
		if !s.eat(',') {
			return nil, false
		}
	}
	d.c.Choices = choices
	d.began = true
	return &d.c, s.end()
}

// keep remembers the text read so far as the opening of the chunks to come, unless a string in it
// had escapes (its value is not a span of the text) or a raw value came before "choices".
func (d *ChunkDecoder) keep(seen uint16) {
	d.opening = d.opening[:0]
	c := &d.c
	strs := [4]*Str{&c.ID, &c.Object, &c.Model, &c.SystemFingerprint}
	for i, str := range strs {
		if str.Set && len(str.B) != d.spans[i][1]-d.spans[i][0] {
			return
		}
	}
	if c.Usage != nil || c.UsageFromProvider != nil || c.UsageFromConsumer != nil {
		return
	}
	if d.opening == nil {
		d.opening = d.openingBuf[:0]
	}
	d.opening = append(d.opening, d.s.b[:d.s.i]...)
	d.head, d.seen = Chunk{Created: c.Created}, seen
	heads := [4]*Str{&d.head.ID, &d.head.Object, &d.head.Model, &d.head.SystemFingerprint}
	for i, str := range strs {
		if str.Set {
			*heads[i] = Str{B: d.opening[d.spans[i][0]:d.spans[i][1]], Set: true}
		}
	}
}

// The keys of each object, which unknown keys must not resemble.
var (
	chunkKeys    = []string{"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "usage_from_provider", "usage_from_consumer", "error"}
	choiceKeys   = []string{"index", "delta", "message", "finish_reason", "logprobs"}
	deltaKeys    = []string{"role", "content", "reasoning_content", "reasoning", "refusal", "tool_calls"}
	toolCallKeys = []string{"index", "id", "type", "function"}
	functionKeys = []string{"name", "arguments"}
)

// once marks a key as seen; a key seen before is declined, as encoding/json versions differ on
// duplicates.
func once(seen *uint16, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		return false
	}
	*seen |= 1 << bit
	return true
}

// field reads the value of one of the chunk's keys.
func (d *ChunkDecoder) field(key []byte, seen *uint16, choices *[]Choice) bool {
	s, c := &d.s, &d.c
	switch string(key) {
	case "id":
		return once(seen, 0) && d.topStr(&c.ID, 0)
	case "object":
		return once(seen, 1) && d.topStr(&c.Object, 1)
	case "model":
		return once(seen, 2) && d.topStr(&c.Model, 2)
	case "system_fingerprint":
		return once(seen, 3) && d.topStr(&c.SystemFingerprint, 3)
	case "created":
		return once(seen, 4) && s.optInteger(&c.Created, 18)
	case "choices":
		return once(seen, 5) && (s.null() || s.array(func() bool {
			*choices = grow(*choices)
			return s.choice(&(*choices)[len(*choices)-1])
		}))
	case "usage":
		return once(seen, 6) && s.optRaw(&c.Usage)
	case "usage_from_provider":
		return once(seen, 7) && s.optRaw(&c.UsageFromProvider)
	case "usage_from_consumer":
		return once(seen, 8) && s.optRaw(&c.UsageFromConsumer)
	case "error": // a chunk that carries one goes to the full decoder
		return once(seen, 9) && s.null()
	}
	return s.unknown(key, chunkKeys)
}

// topStr reads one of the chunk's strings, noting where its text lies for keep.
func (d *ChunkDecoder) topStr(dst *Str, i int) bool {
	d.s.ws()
	start := d.s.i + 1
	ok := d.s.optStr(dst)
	d.spans[i] = [2]int{start, d.s.i - 1}
	return ok
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

// optInteger reads an integer of at most maxDigits digits, or null, which leaves dst alone.
func (s *scanner) optInteger(dst *int64, maxDigits int) bool {
	if s.null() {
		return true
	}
	n, ok := s.integer(maxDigits)
	*dst = n
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
		switch string(key) {
		case "index":
			if !once(&seen, 0) {
				return false
			}
			if s.null() {
				return true
			}
			n, ok := s.integer(9)
			ch.Index = int(n)
			return ok
		case "delta":
			return once(&seen, 1) && (s.null() || s.delta(&ch.Delta))
		case "message":
			if !once(&seen, 2) {
				return false
			}
			if s.null() {
				return true
			}
			ch.HasMessage = true
			return s.delta(&ch.Message)
		case "finish_reason":
			return once(&seen, 3) && s.optStr(&ch.FinishReason)
		case "logprobs":
			return once(&seen, 4) && s.optRaw(&ch.Logprobs)
		}
		return s.unknown(key, choiceKeys)
	})
}

func (s *scanner) delta(d *Delta) bool {
	calls := d.ToolCalls[:0]
	var seen uint16
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "role":
			return once(&seen, 0) && s.optStr(&d.Role)
		case "content":
			return once(&seen, 1) && s.optStr(&d.Content)
		case "reasoning_content":
			return once(&seen, 2) && s.plainStr(&d.ReasoningContent)
		case "reasoning":
			return once(&seen, 3) && s.plainStr(&d.Reasoning)
		case "refusal":
			return once(&seen, 4) && s.plainStr(&d.Refusal)
		case "tool_calls":
			return once(&seen, 5) && (s.null() || s.array(func() bool {
				calls = grow(calls)
				return s.toolCall(&calls[len(calls)-1])
			}))
		}
		return s.unknown(key, deltaKeys)
	})
	d.ToolCalls = calls
	return ok
}

func (s *scanner) toolCall(t *ToolCall) bool {
	*t = ToolCall{}
	var seen uint16
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "index":
			if !once(&seen, 0) {
				return false
			}
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
			return once(&seen, 1) && s.optStr(&t.ID)
		case "type":
			return once(&seen, 2) && s.optStr(&t.Type)
		case "function":
			return once(&seen, 3) && (s.null() || s.function(t))
		}
		return s.unknown(key, toolCallKeys)
	})
}

func (s *scanner) function(t *ToolCall) bool {
	var seen uint16
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return once(&seen, 0) && s.optStr(&t.Name)
		case "arguments":
			return once(&seen, 1) && s.plainStr(&t.Arguments)
		}
		return s.unknown(key, functionKeys)
	})
}
