package infergate

import (
	"encoding/json"
	"strings"

	"github.com/infergate/infergate-go/internal/jsonscan"
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

// unquote returns the text of a JSON string that the decoder handing it over has checked: in one
// pass, and through encoding/json only for what the scanner declines (lone surrogates, invalid
// UTF-8), on which encoding/json versions differ.
func unquote(b []byte) (string, error) {
	if s, ok := jsonscan.Unquote(b); ok {
		return s, nil
	}
	var s string
	return s, json.Unmarshal(b, &s)
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
	Content []TokenLogprob `json:"content"`           // one per token of the content, in order
	Refusal []TokenLogprob `json:"refusal,omitempty"` // one per token of a refusal, when the model refused
}

// TokenLogprob is one generated token with its log probability and the most likely alternatives.
type TokenLogprob struct {
	Token string `json:"token"` // the token's text
	// Logprob is the natural log of the token's probability: 0 is certain, lower is less likely.
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"` // the token's UTF-8 bytes; null when the token is not text
	// TopLogprobs are the likeliest tokens at this position, as many as top_logprobs asked for.
	TopLogprobs []TopLogprob `json:"top_logprobs"`
}

// TopLogprob is one alternative for a token position.
type TopLogprob struct {
	Token   string  `json:"token"`   // the alternative token's text
	Logprob float64 `json:"logprob"` // natural log of its probability
	Bytes   []int   `json:"bytes"`   // the token's UTF-8 bytes; null when the token is not text
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
