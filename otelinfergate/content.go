package otelinfergate

import (
	"encoding/json"
	"net/url"
	"strings"

	infergate "github.com/infergate/infergate-go"
)

// The shapes of gen_ai.input.messages and gen_ai.output.messages: a JSON list of messages, each a
// role and a list of typed parts.
type (
	messageJSON struct {
		Role         string     `json:"role"`
		Parts        []partJSON `json:"parts"`
		Name         string     `json:"name,omitempty"`
		FinishReason string     `json:"finish_reason,omitempty"`
	}
	partJSON struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		Response  *string         `json:"response,omitempty"`
		Modality  string          `json:"modality,omitempty"`
		MimeType  string          `json:"mime_type,omitempty"`
		URI       string          `json:"uri,omitempty"`
	}
)

func inputMessages(msgs []infergate.Message) string {
	out := make([]messageJSON, 0, len(msgs))
	for i := range msgs {
		out = append(out, messageOf(&msgs[i], ""))
	}
	return marshal(out)
}

func outputMessages(c *infergate.ChatCompletion) string {
	out := make([]messageJSON, 0, len(c.Choices))
	for i := range c.Choices {
		out = append(out, messageOf(&c.Choices[i].Message, string(c.Choices[i].FinishReason)))
	}
	return marshal(out)
}

func messageOf(m *infergate.Message, finish string) messageJSON {
	msg := messageJSON{Role: string(m.Role), Name: m.Name, FinishReason: finish, Parts: []partJSON{}}
	if m.Reasoning != "" {
		msg.Parts = append(msg.Parts, partJSON{Type: "reasoning", Content: m.Reasoning})
	}
	if m.Role == infergate.RoleTool {
		text := m.Text()
		return messageJSON{Role: msg.Role, Parts: []partJSON{{Type: "tool_call_response", ID: m.ToolCallID, Response: &text}}}
	}
	if m.Parts == nil && m.Content != "" {
		msg.Parts = append(msg.Parts, partJSON{Type: "text", Content: m.Content})
	}
	for _, p := range m.Parts {
		msg.Parts = append(msg.Parts, partOf(p))
	}
	if m.Refusal != "" {
		msg.Parts = append(msg.Parts, partJSON{Type: "refusal", Content: m.Refusal})
	}
	for _, call := range m.ToolCalls {
		part := partJSON{Type: "tool_call", ID: call.ID, Name: call.Function.Name}
		if json.Valid([]byte(call.Function.Arguments)) {
			part.Arguments = json.RawMessage(call.Function.Arguments)
		} else if call.Function.Arguments != "" {
			part.Arguments, _ = json.Marshal(call.Function.Arguments)
		}
		msg.Parts = append(msg.Parts, part)
	}
	return msg
}

// partOf converts a content part: text as text, an image by URL as a uri part and an inline one
// (a data URI) as a blob part; other parts by their type alone.
func partOf(p infergate.ContentPart) partJSON {
	switch {
	case p.Type == "text":
		return partJSON{Type: "text", Content: p.Text}
	case p.ImageURL != nil:
		if mime, data, ok := dataURI(p.ImageURL.URL); ok {
			return partJSON{Type: "blob", Modality: "image", MimeType: mime, Content: data}
		}
		return partJSON{Type: "uri", Modality: "image", URI: imageURI(p.ImageURL.URL)}
	}
	return partJSON{Type: p.Type}
}

// imageURI is an image's URL without its query and user info, where a presigned URL carries its
// signature; a URL that does not parse is not recorded.
func imageURI(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return safeURL(u)
}

// dataURI splits data:<mime>;base64,<data>.
func dataURI(u string) (mime, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	head, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	mime, _, _ = strings.Cut(head, ";")
	return mime, data, true
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
