package genkitinfergate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/firebase/genkit/go/ai"

	infergate "github.com/infergate/infergate-go"
)

func invalid(field, format string, args ...any) error {
	return &infergate.ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// chatRequest renders genkit's request as the SDK's, for model id. What cannot be sent is a
// *infergate.ValidationError, returned before anything is sent.
func chatRequest(id string, in *ai.ModelRequest) (infergate.ChatRequest, error) {
	req := infergate.ChatRequest{Model: id}
	if in == nil {
		return req, invalid("request", "is nil")
	}
	if err := applyConfig(&req, in.Config); err != nil {
		return req, err
	}
	for i, m := range in.Messages {
		msgs, err := toMessages(fmt.Sprintf("Messages[%d]", i), m)
		if err != nil {
			return req, err
		}
		req.Messages = append(req.Messages, msgs...)
	}
	for i, t := range in.Tools {
		if t == nil {
			return req, invalid(fmt.Sprintf("Tools[%d]", i), "is nil")
		}
		params := any(t.InputSchema)
		if t.InputSchema == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		req.Tools = append(req.Tools, infergate.Tool{Type: "function",
			Function: infergate.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	switch in.ToolChoice {
	case "":
	case ai.ToolChoiceAuto:
		req.ToolChoice = infergate.ToolChoiceAuto
	case ai.ToolChoiceRequired:
		req.ToolChoice = infergate.ToolChoiceRequired
	case ai.ToolChoiceNone:
		req.ToolChoice = infergate.ToolChoiceNone
	default:
		return req, invalid("ToolChoice", "unknown choice %q", string(in.ToolChoice))
	}
	return req, nil
}

// applyConfig maps genkit's common settings. Config comes as the caller's
// *ai.GenerationCommonConfig, or as JSON decoded into a map when the request came through genkit's
// developer UI or a flow; both are read alike. GenerationCommonConfig cannot tell a zero
// temperature or top-p from none, so zero sends none and the model's default applies.
func applyConfig(req *infergate.ChatRequest, config any) error {
	var c ai.GenerationCommonConfig
	switch v := config.(type) {
	case nil:
		return nil
	case *ai.GenerationCommonConfig:
		if v == nil {
			return nil
		}
		c = *v
	case ai.GenerationCommonConfig:
		c = v
	case map[string]any:
		raw, err := json.Marshal(v)
		if err != nil {
			return invalid("Config", "cannot be encoded as JSON: %v", err)
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return invalid("Config", "is not a GenerationCommonConfig: %v", err)
		}
	default:
		return invalid("Config", "is a %T: give an *ai.GenerationCommonConfig", config)
	}
	if c.MaxOutputTokens != 0 {
		req.MaxTokens = infergate.Ptr(c.MaxOutputTokens)
	}
	if c.Temperature != 0 {
		req.Temperature = infergate.Ptr(c.Temperature)
	}
	if c.TopP != 0 {
		req.TopP = infergate.Ptr(c.TopP)
	}
	if c.TopK != 0 {
		// Not every provider takes top_k; those that do read it from the request's top level.
		req.Extra = map[string]any{"top_k": c.TopK}
	}
	req.Stop = c.StopSequences
	return nil
}

// toMessages converts one of genkit's messages. A tool message holds every tool response of a
// turn, which the chat API sends as one message each.
func toMessages(field string, m *ai.Message) ([]infergate.Message, error) {
	if m == nil {
		return nil, invalid(field, "is nil")
	}
	switch m.Role {
	case ai.RoleTool:
		return toolResults(field, m)
	case ai.RoleSystem, ai.RoleUser, ai.RoleModel:
	default:
		return nil, invalid(field+".Role", "unknown role %q", string(m.Role))
	}
	out := infergate.Message{Role: infergate.Role(m.Role)}
	if m.Role == ai.RoleModel {
		out.Role = infergate.RoleAssistant
		var err error
		if out.Extra, err = readFields(field+".Metadata["+strconv.Quote(MetadataFields)+"]", m.Metadata); err != nil {
			return nil, err
		}
	}
	var text, reasoning strings.Builder
	var parts []infergate.ContentPart
	hasMedia := false
	for i, p := range m.Content {
		f := fmt.Sprintf("%s.Content[%d]", field, i)
		if p == nil {
			return nil, invalid(f, "is nil")
		}
		switch {
		case p.IsText(), p.IsData():
			text.WriteString(p.Text)
			parts = append(parts, infergate.TextPart(p.Text))
		case p.IsMedia():
			u, err := mediaURL(f, p)
			if err != nil {
				return nil, err
			}
			parts = append(parts, infergate.ImageURLPart(u))
			hasMedia = true
		case p.IsReasoning():
			// Thinking models that call tools need their reasoning back on the next turn; the
			// SDK sends it as reasoning_content with an assistant message, and a user's has none.
			if m.Role == ai.RoleModel {
				reasoning.WriteString(p.Text)
			}
		case p.IsToolRequest() && m.Role == ai.RoleModel && p.ToolRequest != nil:
			args, err := toolArguments(p.ToolRequest.Input)
			if err != nil {
				return nil, invalid(f+".ToolRequest.Input", "%v", err)
			}
			fields, err := readFields(f+".Metadata["+strconv.Quote(MetadataFields)+"]", p.Metadata)
			if err != nil {
				return nil, err
			}
			out.ToolCalls = append(out.ToolCalls, infergate.ToolCall{ID: p.ToolRequest.Ref, Type: "function",
				Function: infergate.FunctionCall{Name: p.ToolRequest.Name, Arguments: args}, Extra: fields})
		default:
			return nil, invalid(f, "a %s part cannot be sent in a %s message", partKind(p), m.Role)
		}
	}
	if hasMedia {
		out.Parts = parts
	} else {
		out.Content = text.String()
	}
	out.Reasoning = reasoning.String()
	return []infergate.Message{out}, nil
}

// toolResults converts the tool responses of a tool message, one chat message each.
func toolResults(field string, m *ai.Message) ([]infergate.Message, error) {
	out := make([]infergate.Message, 0, len(m.Content))
	for i, p := range m.Content {
		f := fmt.Sprintf("%s.Content[%d]", field, i)
		if p == nil || !p.IsToolResponse() || p.ToolResponse == nil {
			return nil, invalid(f, "a tool message holds tool responses only, not a %s part", partKind(p))
		}
		content, err := toolOutput(p.ToolResponse)
		if err != nil {
			return nil, invalid(f+".ToolResponse", "%v", err)
		}
		out = append(out, infergate.Message{Role: infergate.RoleTool, ToolCallID: p.ToolResponse.Ref,
			Name: p.ToolResponse.Name, Content: content})
	}
	return out, nil
}

// toolArguments is a tool request's input as the arguments text the wire carries. A string is
// taken to be that text already: it is what an answer whose arguments were not JSON gave.
func toolArguments(input any) (string, error) {
	switch v := input.(type) {
	case nil:
		return "{}", nil
	case string:
		return v, nil
	}
	b, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("cannot be encoded as JSON: %w", err)
	}
	return string(b), nil
}

// toolOutput is a tool's result as the text a tool message carries: a string as it is, any other
// output as JSON, or the text of the response's parts when it has no output.
func toolOutput(r *ai.ToolResponse) (string, error) {
	switch v := r.Output.(type) {
	case string:
		return v, nil
	case nil:
		var b strings.Builder
		for _, p := range r.Content {
			if p != nil && p.IsText() {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	b, err := json.Marshal(r.Output)
	if err != nil {
		return "", fmt.Errorf("output cannot be encoded as JSON: %w", err)
	}
	return string(b), nil
}

// mediaURL is where an image part's bytes are: its https or data URL. The gateway takes images
// only.
func mediaURL(field string, p *ai.Part) (string, error) {
	u := p.Text
	ct := p.ContentType
	if ct == "" && strings.HasPrefix(u, "data:") {
		ct, _, _ = strings.Cut(strings.TrimPrefix(u, "data:"), ";")
	}
	if ct != "" && !ai.IsImageContentType(ct) {
		return "", invalid(field, "a %q part cannot be sent: the gateway takes text and images", ct)
	}
	if u == "" {
		return "", invalid(field, "has no URL")
	}
	return u, nil
}

func partKind(p *ai.Part) string {
	switch {
	case p == nil:
		return "nil"
	case p.IsText():
		return "text"
	case p.IsMedia():
		return "media"
	case p.IsData():
		return "data"
	case p.IsToolRequest():
		return "tool request"
	case p.IsToolResponse():
		return "tool response"
	case p.IsReasoning():
		return "reasoning"
	case p.IsResource():
		return "resource"
	case p.IsCustom():
		return "custom"
	}
	return fmt.Sprintf("kind %d", p.Kind)
}
