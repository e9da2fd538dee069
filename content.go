package infergate

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/infergate/infergate-go/internal/jsonscan"
	"github.com/infergate/infergate-go/internal/jsonwrite"
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

// Requests are encoded in one pass over a growing buffer. encoding/json would encode each message
// through Message.MarshalJSON and then scan the result again to check it, which for a long history
// is most of the cost of a call; here each string is escaped once, straight into the body.

// appendMessage appends m's wire form: content as a string, or as a list of parts when Parts is set;
// then Extra's fields, each value as it is (Validate or MarshalJSON has checked them).
func appendMessage(b []byte, m *Message) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = jsonwrite.String(b, string(m.Role))
	b = append(b, `,"content":`...)
	if m.Parts != nil {
		parts, err := json.Marshal(m.Parts)
		if err != nil {
			return nil, err
		}
		b = append(b, parts...)
	} else {
		b = jsonwrite.String(b, m.Content)
	}
	b = jsonwrite.Field(b, "name", m.Name)
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
	b = jsonwrite.Field(b, "tool_call_id", m.ToolCallID)
	b = jsonwrite.Field(b, "refusal", m.Refusal)
	b = jsonwrite.Field(b, "reasoning_content", m.Reasoning)
	b = appendFields(b, m.Extra)
	return append(b, '}'), nil
}

func appendToolCall(b []byte, c *ToolCall) []byte {
	b = append(b, `{"id":`...)
	b = jsonwrite.String(b, c.ID)
	b = append(b, `,"type":`...)
	b = jsonwrite.String(b, c.Type)
	b = append(b, `,"function":{"name":`...)
	b = jsonwrite.String(b, c.Function.Name)
	b = append(b, `,"arguments":`...)
	b = jsonwrite.String(b, c.Function.Arguments)
	b = append(b, '}')
	b = appendFields(b, c.Extra)
	return append(b, '}')
}

// appendChatFields appends the request's fields other than its messages, each as ,"key":value, in
// the order and with the omissions encoding/json would give wireChatRequest: a call encodes them
// without reflection, except for a tool choice, which has an encoder of its own. verbatim is what
// the request's check proved of its tools' parameters (see appendTools).
func appendChatFields(b []byte, r *ChatRequest, verbatim uint64, stream bool) ([]byte, error) {
	for _, f := range [...]*float64{r.Temperature, r.TopP, r.PresencePenalty, r.FrequencyPenalty} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			return nil, fmt.Errorf("unsupported number %v", *f)
		}
	}
	b = jsonwrite.Field(b, "model", r.Model)
	b = jsonwrite.FloatField(b, "temperature", r.Temperature)
	b = jsonwrite.FloatField(b, "top_p", r.TopP)
	b = jsonwrite.IntField(b, "n", r.N)
	if len(r.Stop) > 0 {
		b = append(b, `,"stop":[`...)
		for i, s := range r.Stop {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonwrite.String(b, s)
		}
		b = append(b, ']')
	}
	b = jsonwrite.IntField(b, "max_tokens", r.MaxTokens)
	b = jsonwrite.FloatField(b, "presence_penalty", r.PresencePenalty)
	b = jsonwrite.FloatField(b, "frequency_penalty", r.FrequencyPenalty)
	if len(r.Tools) > 0 {
		var err error
		if b, err = appendTools(append(b, `,"tools":`...), r.Tools, verbatim); err != nil {
			return nil, err
		}
	}
	if !r.ToolChoice.IsZero() {
		choice, err := r.ToolChoice.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"tool_choice":`...), choice...)
	}
	b = jsonwrite.Field(b, "session_id", r.SessionID)
	if stream {
		b = append(b, `,"stream":true`...)
	}
	return b, nil
}
