package infergate

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Content arrives in three shapes: a string, null, or a list of parts. Providers put reasoning in
// three places: "reasoning_content" (DeepSeek, vLLM), "reasoning" (OpenRouter, newer vLLM), and
// Mistral's "thinking" parts inside the content list. Messages and stream deltas both decode through
// wireContent, so every shape lands in the same fields whichever path it took.

// wireContent decodes a message's or a delta's content.
type wireContent struct {
	text      string
	reasoning string        // the text of thinking parts
	parts     []ContentPart // every part as received, when the list held one the SDK does not fold
}

func (c *wireContent) reset() { c.text, c.reasoning, c.parts = "", "", nil }

// UnmarshalJSON takes a string, null, a list of parts, or a single part object. A number or boolean
// where text belongs is kept as its text rather than failing the whole message.
func (c *wireContent) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		var err error
		c.text, err = unquote(b)
		return err
	case '[':
		var raws []json.RawMessage
		if err := json.Unmarshal(b, &raws); err != nil {
			return err
		}
		return c.addParts(raws)
	case '{':
		return c.addParts([]json.RawMessage{b})
	case 'n':
		return nil
	}
	c.text = string(b)
	return nil
}

// addParts folds text parts into text and thinking parts into reasoning. Parts of any other type
// (images, audio, types this SDK does not know) keep the whole list, as received, in parts.
func (c *wireContent) addParts(raws []json.RawMessage) error {
	var text, reasoning strings.Builder
	parts := make([]ContentPart, 0, len(raws))
	other := false
	for _, raw := range raws {
		var p ContentPart
		if err := p.UnmarshalJSON(raw); err != nil {
			return err
		}
		switch p.Type {
		case "text":
			text.WriteString(p.Text)
		case "thinking":
			reasoning.WriteString(thinkingText(p.Raw))
		default:
			other = true
		}
		parts = append(parts, p)
	}
	c.text, c.reasoning = text.String(), reasoning.String()
	if other {
		c.parts = parts
	}
	return nil
}

// thinkingText reads a thinking part's text, given as a string or as a list of text parts.
func thinkingText(raw json.RawMessage) string {
	var p struct {
		Thinking wireContent `json:"thinking"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	return p.Thinking.text
}

// unquote returns the text of a JSON string already checked by the decoder that hands it over:
// plainString's copy when nothing needs unescaping, else one pass through the escapes.
func unquote(b []byte) (string, error) {
	if s, ok := plainString(b); ok {
		return s, nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		var s string
		return s, json.Unmarshal(b, &s)
	}
	var out strings.Builder
	out.Grow(len(b))
	in := b[1 : len(b)-1]
	for len(in) > 0 {
		i := bytes.IndexByte(in, '\\')
		if i < 0 {
			i = len(in)
		}
		writeValidUTF8(&out, in[:i])
		if i == len(in) {
			break
		}
		n, ok := writeEscape(&out, in[i:])
		if !ok {
			var s string
			return s, json.Unmarshal(b, &s) // not what a decoder passes on: let it say why
		}
		in = in[i+n:]
	}
	return out.String(), nil
}

// writeEscape writes the character of the escape at the start of in and returns its length.
func writeEscape(out *strings.Builder, in []byte) (int, bool) {
	if len(in) < 2 {
		return 0, false
	}
	switch c := in[1]; c {
	case '"', '\\', '/':
		out.WriteByte(c)
	case 'b':
		out.WriteByte('\b')
	case 'f':
		out.WriteByte('\f')
	case 'n':
		out.WriteByte('\n')
	case 'r':
		out.WriteByte('\r')
	case 't':
		out.WriteByte('\t')
	case 'u':
		r, ok := hex4(in[2:])
		if !ok {
			return 0, false
		}
		if utf16.IsSurrogate(r) {
			if len(in) >= 12 && in[6] == '\\' && in[7] == 'u' {
				if r2, ok := hex4(in[8:]); ok {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						out.WriteRune(pair)
						return 12, true
					}
				}
			}
			r = utf8.RuneError
		}
		out.WriteRune(r)
		return 6, true
	default:
		return 0, false
	}
	return 2, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// writeValidUTF8 writes b, replacing invalid UTF-8 with U+FFFD as encoding/json does.
func writeValidUTF8(out *strings.Builder, b []byte) {
	start := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		if r, size := utf8.DecodeRune(b[i:]); r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		out.Write(b[start:i])
		out.WriteRune(utf8.RuneError)
		i++
		start = i
	}
	out.Write(b[start:])
}

// plainString returns the text of a JSON string that needs no unescaping, without the detour
// through the reflection decoder; ok is false when it needs the full decoder.
func plainString(b []byte) (string, bool) {
	if len(b) < 2 || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// joinReasoning merges the reasoning spellings of one message or delta. Servers that send both
// "reasoning_content" and "reasoning" send the same text twice, so one of them is enough.
func joinReasoning(reasoningContent, reasoning, thinking string) string {
	if reasoningContent == "" {
		reasoningContent = reasoning
	}
	return reasoningContent + thinking
}

// wireArgs decodes tool-call arguments: a string as the wire requires, or a JSON object (or any
// other value) that some servers send unquoted, kept as its JSON text.
type wireArgs string

func (a *wireArgs) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		s, err := unquote(b)
		*a = wireArgs(s)
		return err
	case 'n':
		return nil
	}
	*a = wireArgs(b)
	return nil
}

// Logprobs are the log probabilities of a choice's tokens, when the request asked for them (with
// the "logprobs" field, set through ChatRequest.Extra).
type Logprobs struct {
	Content []TokenLogprob `json:"content"`
	Refusal []TokenLogprob `json:"refusal,omitempty"`
}

// TokenLogprob is one generated token with its log probability and the most likely alternatives.
type TokenLogprob struct {
	Token       string       `json:"token"`
	Logprob     float64      `json:"logprob"`
	Bytes       []int        `json:"bytes"` // the token's UTF-8 bytes; null when the token is not text
	TopLogprobs []TopLogprob `json:"top_logprobs"`
}

// TopLogprob is one alternative for a token position.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

// appendLogprobs adds a delta's log probabilities to those accumulated so far.
func appendLogprobs(acc, delta *Logprobs) *Logprobs {
	if delta == nil {
		return acc
	}
	if acc == nil {
		acc = &Logprobs{}
	}
	acc.Content = append(acc.Content, delta.Content...)
	acc.Refusal = append(acc.Refusal, delta.Refusal...)
	return acc
}
