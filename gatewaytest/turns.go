package gatewaytest

import (
	"encoding/json"
	"strings"
)

// Turn is one message of the conversation a chat request sent, as the fake model reads it: what
// a scripted Reply.Respond decides on, and what tests assert on with Request.Turns (the tool
// results the model saw, say).
type Turn struct {
	Role       string     // system, user, assistant or tool, as sent
	Content    string     // the text; text parts are joined
	Reasoning  string     // reasoning_content sent back with an assistant turn
	ToolCallID string     // for a tool result: the call it answers
	ToolCalls  []ToolCall // the calls an assistant turn asked for, with their ids and arguments
}

type wireTurn struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Reasoning  string          `json:"reasoning_content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// Turns returns the conversation of a chat request; nil for other requests.
func (r Request) Turns() []Turn {
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return nil
	}
	return turns(body.Messages)
}

func turns(msgs []json.RawMessage) []Turn {
	out := make([]Turn, 0, len(msgs))
	for _, raw := range msgs {
		var w wireTurn
		if json.Unmarshal(raw, &w) != nil {
			continue
		}
		t := Turn{Role: w.Role, Content: contentText(w.Content), Reasoning: w.Reasoning, ToolCallID: w.ToolCallID}
		for _, c := range w.ToolCalls {
			t.ToolCalls = append(t.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		out = append(out, t)
	}
	return out
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []contentPart
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, " ")
}
