package infergate

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/infergate/infergate-go/internal/jsonwrite"
)

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
// without reflection, except for tools and a tool choice, which have encoders of their own.
func appendChatFields(b []byte, r *ChatRequest, stream bool) ([]byte, error) {
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
	b = jsonwrite.Field(b, "session_id", r.SessionID)
	if stream {
		b = append(b, `,"stream":true`...)
	}
	return b, nil
}
