package infergate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// Requests are encoded in one pass over a growing buffer. encoding/json would encode each message
// through Message.MarshalJSON and then scan the result again to check it, which for a long history
// is most of the cost of a call; here each string is escaped once, straight into the body.

// appendMessage appends m's wire form: content as a string, or as a list of parts when Parts is set;
// then Extra's fields, each value as it is (Validate or MarshalJSON has checked them).
func appendMessage(b []byte, m *Message) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = appendString(b, string(m.Role))
	b = append(b, `,"content":`...)
	if m.Parts != nil {
		parts, err := json.Marshal(m.Parts)
		if err != nil {
			return nil, err
		}
		b = append(b, parts...)
	} else {
		b = appendString(b, m.Content)
	}
	b = appendField(b, "name", m.Name)
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i := range m.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendToolCall(b, &m.ToolCalls[i])
		}
		b = append(b, ']')
	}
	b = appendField(b, "tool_call_id", m.ToolCallID)
	b = appendField(b, "refusal", m.Refusal)
	b = appendField(b, "reasoning_content", m.Reasoning)
	b = appendFields(b, m.Extra)
	return append(b, '}'), nil
}

func appendToolCall(b []byte, c *ToolCall) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, c.ID)
	b = append(b, `,"type":`...)
	b = appendString(b, c.Type)
	b = append(b, `,"function":{"name":`...)
	b = appendString(b, c.Function.Name)
	b = append(b, `,"arguments":`...)
	b = appendString(b, c.Function.Arguments)
	b = append(b, '}')
	b = appendFields(b, c.Extra)
	return append(b, '}')
}

// appendField appends ,"name":"value" when value is not empty.
func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

// safeASCII marks the bytes a JSON string holds as they are.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// plainPrefix returns how many of the eight bytes of w, from the first, JSON holds as they are:
// printable ASCII other than a quote or a backslash. The bytes are read as one word, and a high bit
// marks each byte that is not plain; the lowest mark is exact, as borrows only run upwards from a
// marked byte.
func plainPrefix(w string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	quote, backslash := x^('"'*ones), x^('\\'*ones)
	special := ((x - 0x20*ones) | (quote - ones) | (backslash - ones) | x) & highs
	if special == 0 {
		return 8
	}
	return bits.TrailingZeros64(special) / 8
}

// appendString appends s as a JSON string, escaped as encoding/json escapes it except that <, > and
// & are kept: quotes, backslashes and control characters escaped, invalid UTF-8 replaced by U+FFFD,
// and U+2028 and U+2029 escaped for JavaScript readers.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				if i+8 <= len(s) {
					i += plainPrefix(s[i : i+8]) // at least 1: c is plain
				} else {
					i++
				}
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendChatFields appends the request's fields other than its messages, each as ,"key":value, in
// the order and with the omissions encoding/json would give wireChatRequest: a call encodes them
// without reflection, except for tools and a tool choice, which have encoders of their own.
func appendChatFields(b []byte, r *ChatRequest, stream bool) ([]byte, error) {
	for _, f := range [...]*float64{r.Temperature, r.TopP, r.PresencePenalty, r.FrequencyPenalty} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			return nil, fmt.Errorf("unsupported number %v", *f)
		}
	}
	b = appendField(b, "model", r.Model)
	b = appendFloatField(b, "temperature", r.Temperature)
	b = appendFloatField(b, "top_p", r.TopP)
	b = appendIntField(b, "n", r.N)
	if len(r.Stop) > 0 {
		b = append(b, `,"stop":[`...)
		for i, s := range r.Stop {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	b = appendIntField(b, "max_tokens", r.MaxTokens)
	b = appendFloatField(b, "presence_penalty", r.PresencePenalty)
	b = appendFloatField(b, "frequency_penalty", r.FrequencyPenalty)
	if len(r.Tools) > 0 {
		tools, err := json.Marshal(r.Tools)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"tools":`...), tools...)
	}
	if !r.ToolChoice.IsZero() {
		choice, err := r.ToolChoice.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"tool_choice":`...), choice...)
	}
	b = appendField(b, "session_id", r.SessionID)
	if stream {
		b = append(b, `,"stream":true`...)
	}
	return b, nil
}

func appendIntField(b []byte, name string, v *int) []byte {
	if v == nil {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	return strconv.AppendInt(b, int64(*v), 10)
}

// appendFloatField appends a finite number as encoding/json writes it: the shortest decimal that
// reads back the same, in exponent form only below 1e-6 or from 1e21 on.
func appendFloatField(b []byte, name string, v *float64) []byte {
	if v == nil {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	f := *v
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		// e-09 is written e-9, as encoding/json writes it.
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}
