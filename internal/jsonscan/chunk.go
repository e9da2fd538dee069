package jsonscan

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
	Extra                                []Field // the keys the decoder does not model, in order
}

// ToolCall is one fragment of a tool call; HasIndex is false when "index" was absent or null.
type ToolCall struct {
	Index     int
	HasIndex  bool
	ID, Type  Str
	Name      Str
	Arguments []byte
	Extra     []Field // the keys the decoder does not model, in order
}

// ChunkDecoder decodes chat completion chunks, reusing its memory from one chunk to the next.
// The zero value is ready to use; a decoder holds pointers into itself and must not be copied once
// used.
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
//   - any other key of a delta, a message or a tool call as any value, handed over raw in Extra
//     (a chunk that has one is never kept as the template: its values would have to be compared
//     byte for byte, and vendors' values change from chunk to chunk);
//   - any other key elsewhere, whose value is validated and skipped (the caller keeps the raw
//     event).
//
// Anything else is declined: content as a list of parts, arguments as an object, a value of an
// unexpected type, a duplicate key, a key that matches a known one only without regard to case, a
// lone surrogate escape or invalid UTF-8 in a string, anything after the object.
//
// The chunks of a stream mostly differ from one another only inside their string values: from the
// second chunk on, the decoder keeps the last chunk's text as a template (see replay), and reads
// a chunk that matches it outside its strings by reading those strings alone.
type ChunkDecoder struct {
	s     scanner
	c     Chunk
	tmpl  template
	began bool // a chunk was read before: the first is not kept, which spares the first delta

	// Room for the usual chunk and its one choice, which spares the first chunk, on the way to the
	// first delta, an allocation; and for the usual template, which spares a stream a few.
	oneChoice [1]Choice
	slotBuf   [8]slot
	rawBuf    [2]rawRef
	textBuf   [256]byte
}

// Decode reads one chunk's JSON text. It returns false when the text leaves the fast path; the
// caller then decodes it with encoding/json.
func (d *ChunkDecoder) Decode(data []byte) (*Chunk, bool) {
	s := &d.s
	s.reset(data)
	s.roomy = true
	if d.tmpl.ok {
		if d.replay(data) {
			return &d.c, true
		}
		s.reset(data)
	}
	d.tmpl.ok = false
	if s.slots == nil {
		s.slots, s.raws, d.tmpl.text = d.slotBuf[:0], d.rawBuf[:0], d.textBuf[:0]
	}
	s.slots, s.raws, s.grew, s.extra, s.record = s.slots[:0], s.raws[:0], false, false, d.began
	ok := d.decode()
	d.began = true
	if !ok {
		return nil, false
	}
	d.keep(data)
	return &d.c, true
}

// decode reads the text at the scanner, the slow way, key by key.
func (d *ChunkDecoder) decode() bool {
	s := &d.s
	choices := d.c.Choices[:0]
	if choices == nil {
		choices = d.oneChoice[:0]
	}
	d.c = Chunk{}
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return s.end()
	}
	var seen uint16
	for {
		key, ok := s.str()
		if !ok || !s.eat(':') || !d.field(key, &seen, &choices) {
			return false
		}
		if s.eat('}') {
			break
		}
		if !s.eat(',') {
			return false
		}
	}
	d.c.Choices = choices
	return s.end()
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
		return once(seen, 0) && s.optStr(&c.ID)
	case "object":
		return once(seen, 1) && s.optStr(&c.Object)
	case "model":
		return once(seen, 2) && s.optStr(&c.Model)
	case "system_fingerprint":
		return once(seen, 3) && s.optStr(&c.SystemFingerprint)
	case "created":
		return once(seen, 4) && s.optInteger(&c.Created, 18)
	case "choices":
		return once(seen, 5) && (s.null() || s.array(func() bool {
			*choices = grow(*choices, &s.grew)
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

// grow extends a list by one element, reusing the memory of earlier chunks; the element's own
// decoder clears it. It notes when the list moved, which leaves pointers into it behind.
func grow[T any](list []T, grew *bool) []T {
	if len(list) < cap(list) {
		return list[:len(list)+1]
	}
	*grew = true
	var zero T
	return append(list, zero)
}

func (s *scanner) optStr(dst *Str) bool {
	if s.null() {
		return true
	}
	start := s.i
	b, ok := s.str()
	*dst = Str{B: b, Set: true}
	s.note(start, dst, nil)
	return ok
}

// plainStr reads a string or null into a field where null leaves the empty string.
func (s *scanner) plainStr(dst *[]byte) bool {
	if s.null() {
		return true
	}
	start := s.i
	b, ok := s.str()
	*dst = b
	s.note(start, nil, dst)
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
	// A raw value is handed over as text: the template holds all of it, strings too, to the byte.
	record := s.record
	s.record = false
	b, ok := s.raw()
	s.record = record
	*dst = b
	if record {
		s.raws = append(s.raws, rawRef{start: s.i - len(b), dst: dst})
	}
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
				calls = grow(calls, &s.grew)
				return s.toolCall(&calls[len(calls)-1])
			}))
		}
		return s.field(key, deltaKeys, &d.Extra)
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
		return s.field(key, toolCallKeys, &t.Extra)
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
