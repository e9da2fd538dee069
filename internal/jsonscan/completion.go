package jsonscan

// Completion is a non-streamed chat completion as DecodeCompletion reads it. Its strings share one
// buffer of their own and never alias the input; its raw values do.
type Completion struct {
	ID, Object, Model, SystemFingerprint string
	Created                              int64
	Choices                              []CompletionChoice
	// Usage, UsageFromProvider, UsageFromConsumer are raw JSON objects, nil when absent or null.
	Usage, UsageFromProvider, UsageFromConsumer []byte
	// Envelope reports a key at the top level that encoding/json may take for "error" or
	// "success", the keys of a failure reported with a successful status. DecodeCompletion skips
	// such a key as it skips any it does not know; without one, the answer reports no failure.
	Envelope bool
}

// CompletionChoice is one choice of a Completion.
type CompletionChoice struct {
	Index                                 int64
	Role, Content, Reasoning1, Reasoning2 string // Reasoning1 is "reasoning_content", Reasoning2 "reasoning"
	Refusal, FinishReason                 string
	Logprobs                              []byte // raw JSON, nil when absent or null
	ContentSet                            bool   // content was a string, not null
	// ToolCalls are the message's calls: nil when absent or null, empty when an empty list.
	ToolCalls []CompletionCall
	Extra     []Field // the message's keys the decoder does not model, in order
}

// CompletionCall is one tool call of a CompletionChoice, its arguments sent as a string (or null).
type CompletionCall struct {
	ID, Type, Name, Arguments string
	Extra                     []Field // the keys the decoder does not model, "index" aside, in order
}

var (
	completionKeys = []string{"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "usage_from_provider", "usage_from_consumer"}
	answerKeys     = []string{"index", "message", "finish_reason", "logprobs"}
	// messageKeys are the keys a message may have; those DecodeCompletion does not read decline.
	messageKeys = []string{"role", "content", "reasoning_content", "reasoning", "refusal", "tool_calls", "name", "tool_call_id"}
	callKeys    = []string{"id", "type", "function", "index"}
)

// DecodeCompletion reads the usual answer of the chat completion route in one pass: scalars and
// usage at the top, and choices whose message has a role, content as a string or null, reasoning,
// a refusal and tool calls whose arguments are a string. The keys of a message or a tool call that
// it does not model are handed over raw in Extra (a call's "index", its place in the list, is
// skipped); other keys it does not know are skipped (the caller keeps the raw body). It declines
// anything else: content as a list of parts, arguments
// sent as an object, a name, a value of an unexpected type, a duplicate key, invalid JSON.
func DecodeCompletion(b []byte) (Completion, bool) {
	return decodeCompletion(b, newTexts(len(b)))
}

// decodeCompletion is DecodeCompletion with its strings made by t.
func decodeCompletion(b []byte, t texts) (Completion, bool) {
	var c Completion
	s := scanner{b: b}
	var seen uint16
	ok := s.object(func(key []byte) bool { return s.completionField(&c, &t, key, &seen) })
	s.ws()
	return c, ok && s.end()
}

func (s *scanner) completionField(c *Completion, t *texts, key []byte, seen *uint16) bool {
	bit := func(i uint) bool { return once(seen, i) }
	switch string(key) {
	case "id":
		return bit(0) && s.text(t, &c.ID)
	case "object":
		return bit(1) && s.text(t, &c.Object)
	case "created":
		return bit(2) && s.optInteger(&c.Created, 18)
	case "model":
		return bit(3) && s.text(t, &c.Model)
	case "system_fingerprint":
		return bit(4) && s.text(t, &c.SystemFingerprint)
	case "choices":
		return bit(5) && (s.null() || s.array(func() bool {
			c.Choices = append(c.Choices, CompletionChoice{})
			return s.answer(&c.Choices[len(c.Choices)-1], t)
		}))
	case "usage":
		return bit(6) && s.optRaw(&c.Usage)
	case "usage_from_provider":
		return bit(7) && s.optRaw(&c.UsageFromProvider)
	case "usage_from_consumer":
		return bit(8) && s.optRaw(&c.UsageFromConsumer)
	}
	c.Envelope = c.Envelope || resembles(key, "error") || resembles(key, "success")
	return s.unknown(key, completionKeys)
}

func (s *scanner) answer(ch *CompletionChoice, t *texts) bool {
	var seen uint16
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "index":
			return once(&seen, 0) && s.optInteger(&ch.Index, 18)
		case "message":
			return once(&seen, 1) && s.message(ch, t)
		case "finish_reason":
			return once(&seen, 2) && s.text(t, &ch.FinishReason)
		case "logprobs":
			return once(&seen, 3) && s.optRaw(&ch.Logprobs)
		}
		return s.unknown(key, answerKeys)
	})
}

func (s *scanner) message(ch *CompletionChoice, t *texts) bool {
	var seen uint16
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "role":
			return once(&seen, 0) && s.text(t, &ch.Role)
		case "content":
			if !once(&seen, 1) {
				return false
			}
			if s.null() {
				return true
			}
			ch.ContentSet = true
			return s.text(t, &ch.Content)
		case "reasoning_content":
			return once(&seen, 2) && s.text(t, &ch.Reasoning1)
		case "reasoning":
			return once(&seen, 3) && s.text(t, &ch.Reasoning2)
		case "refusal":
			return once(&seen, 4) && s.text(t, &ch.Refusal)
		case "tool_calls":
			if !once(&seen, 5) {
				return false
			}
			if s.null() {
				return true
			}
			ch.ToolCalls = []CompletionCall{} // an empty list stays one
			return s.array(func() bool {
				ch.ToolCalls = append(ch.ToolCalls, CompletionCall{})
				return s.call(&ch.ToolCalls[len(ch.ToolCalls)-1], t)
			})
		}
		return s.field(key, messageKeys, &ch.Extra)
	})
}

// call reads a tool call; a null in place of one, or of its function, declines.
func (s *scanner) call(c *CompletionCall, t *texts) bool {
	var seen uint16
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return once(&seen, 0) && s.text(t, &c.ID)
		case "type":
			return once(&seen, 1) && s.text(t, &c.Type)
		case "function":
			return once(&seen, 2) && s.callFunction(c, t)
		case "index":
			return s.skip(1)
		}
		return s.field(key, callKeys, &c.Extra)
	})
}

func (s *scanner) callFunction(c *CompletionCall, t *texts) bool {
	var seen uint16
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return once(&seen, 0) && s.text(t, &c.Name)
		case "arguments":
			return once(&seen, 1) && s.text(t, &c.Arguments)
		}
		return s.unknown(key, functionKeys)
	})
}
