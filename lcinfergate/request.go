package lcinfergate

import (
	"fmt"
	"strings"

	infergate "github.com/infergate/infergate-go"
	"github.com/tmc/langchaingo/llms"
)

// request builds the chat request a call asks for: the conversation in the SDK's messages, and the
// call options in the request's fields (or Extra, for the wire fields ChatRequest does not model).
// The digest of its messages keys the reasoning of the answer's tool calls.
func (l *LLM) request(messages []llms.MessageContent, opts *llms.CallOptions) (infergate.ChatRequest, conversation, error) {
	req := infergate.ChatRequest{Model: l.model}
	if opts.Model != "" {
		req.Model = opts.Model
	}
	conv := newConversationHash()
	for i, mc := range messages {
		msgs, err := l.messages(conv.sum(), mc)
		if err != nil {
			return req, conversation{}, &infergate.ValidationError{Field: fmt.Sprintf("messages[%d]", i), Reason: err.Error()}
		}
		req.Messages = append(req.Messages, msgs...)
		conv.add(msgs...)
	}
	if opts.Temperature != 0 {
		req.Temperature = infergate.Ptr(opts.Temperature)
	}
	if opts.TopP != 0 {
		req.TopP = infergate.Ptr(opts.TopP)
	}
	if n := max(opts.N, opts.CandidateCount); n > 1 {
		req.N = infergate.Ptr(n)
	}
	if opts.MaxTokens > 0 {
		req.MaxTokens = infergate.Ptr(opts.MaxTokens)
	}
	if opts.FrequencyPenalty != 0 {
		req.FrequencyPenalty = infergate.Ptr(opts.FrequencyPenalty)
	}
	if opts.PresencePenalty != 0 {
		req.PresencePenalty = infergate.Ptr(opts.PresencePenalty)
	}
	req.Stop = opts.StopWords
	extra := map[string]any{}
	if opts.Seed != 0 {
		extra["seed"] = opts.Seed
	}
	if opts.TopK > 0 {
		extra["top_k"] = opts.TopK
	}
	if cfg := llms.GetThinkingConfig(opts); cfg != nil {
		switch cfg.Mode {
		case llms.ThinkingModeLow, llms.ThinkingModeMedium, llms.ThinkingModeHigh:
			extra["reasoning_effort"] = string(cfg.Mode)
		}
	}
	if len(extra) > 0 {
		req.Extra = extra
	}
	for _, fn := range opts.Functions {
		req.Tools = append(req.Tools, tool(fn))
	}
	for i, t := range opts.Tools {
		if t.Function == nil || (t.Type != "" && t.Type != "function") {
			return req, conversation{}, &infergate.ValidationError{Field: fmt.Sprintf("Tools[%d]", i),
				Reason: fmt.Sprintf("only function tools are supported, got type %q", t.Type)}
		}
		req.Tools = append(req.Tools, tool(*t.Function))
	}
	choiceOpt := opts.ToolChoice
	if choiceOpt == nil && opts.FunctionCallBehavior != "" {
		// The older spelling, from the days of functions, which langchaingo's OpenAI adapter
		// still sends; code written against it keeps its meaning.
		choiceOpt = string(opts.FunctionCallBehavior)
	}
	choice, err := toolChoice(choiceOpt)
	if err != nil {
		return req, conversation{}, &infergate.ValidationError{Field: "ToolChoice", Reason: err.Error()}
	}
	req.ToolChoice = choice
	return req, conv.sum(), nil
}

// tool is a langchaingo function definition as the SDK sends it.
func tool(fn llms.FunctionDefinition) infergate.Tool {
	def := infergate.FunctionDefinition{Name: fn.Name, Description: fn.Description, Parameters: fn.Parameters}
	if fn.Strict {
		def.Strict = infergate.Ptr(true)
	}
	return infergate.Tool{Type: "function", Function: def}
}

// toolChoice reads llms.WithToolChoice's value in each form langchaingo's adapters accept: "none",
// "auto", "required" (or "any"), a function's name, and llms.ToolChoice by value or pointer.
func toolChoice(v any) (infergate.ToolChoice, error) {
	switch c := v.(type) {
	case nil:
		return infergate.ToolChoice{}, nil
	case string:
		switch c {
		case "":
			return infergate.ToolChoice{}, nil
		case "none":
			return infergate.ToolChoiceNone, nil
		case "auto":
			return infergate.ToolChoiceAuto, nil
		case "required", "any":
			return infergate.ToolChoiceRequired, nil
		}
		return infergate.ToolChoiceFunction(c), nil
	case llms.ToolChoice:
		if c.Function != nil && c.Function.Name != "" {
			return infergate.ToolChoiceFunction(c.Function.Name), nil
		}
		if c.Type == "function" {
			// Read as a string, the type would force a call of a tool named "function".
			return infergate.ToolChoice{}, fmt.Errorf("type %q names no function", c.Type)
		}
		return toolChoice(c.Type)
	case *llms.ToolChoice:
		if c == nil {
			return infergate.ToolChoice{}, nil
		}
		return toolChoice(*c)
	}
	return infergate.ToolChoice{}, fmt.Errorf("a value of type %T is not supported: use a string or llms.ToolChoice", v)
}

// messages converts one langchaingo message, which follows the messages digested in before: a
// tool message with several results becomes one SDK message per result, as the wire has one per
// call.
func (l *LLM) messages(before conversation, mc llms.MessageContent) ([]infergate.Message, error) {
	switch mc.Role {
	case llms.ChatMessageTypeSystem:
		text, err := textOnly(mc.Parts)
		return []infergate.Message{infergate.SystemMessage(text)}, err
	case llms.ChatMessageTypeHuman, llms.ChatMessageTypeGeneric:
		m, err := userMessage(mc.Parts)
		return []infergate.Message{m}, err
	case llms.ChatMessageTypeAI:
		m, err := l.assistantMessage(before, mc.Parts)
		return []infergate.Message{m}, err
	case llms.ChatMessageTypeTool, llms.ChatMessageTypeFunction:
		var out []infergate.Message
		for _, p := range mc.Parts {
			r, ok := p.(llms.ToolCallResponse)
			if !ok {
				return nil, fmt.Errorf("a %s message holds only tool call responses, got %T", mc.Role, p)
			}
			if r.ToolCallID == "" {
				return nil, fmt.Errorf("the tool call response of %q has no ToolCallID", r.Name)
			}
			out = append(out, infergate.ToolResultMessage(r.ToolCallID, r.Content))
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("a %s message without a tool call response", mc.Role)
		}
		return out, nil
	}
	return nil, fmt.Errorf("role %q is not supported", mc.Role)
}

// textOnly joins the text of parts that may only be text.
func textOnly(parts []llms.ContentPart) (string, error) {
	var b strings.Builder
	for _, p := range parts {
		t, ok := p.(llms.TextContent)
		if !ok {
			return "", fmt.Errorf("a system message holds only text, got %T", p)
		}
		b.WriteString(t.Text)
	}
	return b.String(), nil
}

// userMessage is plain text when the parts are all text, else a list of text and image parts.
func userMessage(parts []llms.ContentPart) (infergate.Message, error) {
	if text, err := textOnly(parts); err == nil {
		return infergate.UserMessage(text), nil
	}
	out := make([]infergate.ContentPart, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case llms.TextContent:
			out = append(out, infergate.TextPart(p.Text))
		case llms.ImageURLContent:
			part := infergate.ImageURLPart(p.URL)
			part.ImageURL.Detail = p.Detail
			out = append(out, part)
		case llms.BinaryContent:
			if !strings.HasPrefix(p.MIMEType, "image/") {
				return infergate.Message{}, fmt.Errorf("binary content of type %q: only images are supported", p.MIMEType)
			}
			out = append(out, infergate.ImageURLPart(p.String()))
		default:
			return infergate.Message{}, fmt.Errorf("a user message cannot hold %T", p)
		}
	}
	return infergate.UserMessageParts(out...), nil
}

// assistantMessage is an earlier answer sent back: its text, its tool calls, and what the adapter
// kept of the answer after the same messages: the reasoning of its calls, which thinking models
// need on the turn after a tool call, and the fields of its message and calls that the SDK does
// not model, which vendors want back.
func (l *LLM) assistantMessage(before conversation, parts []llms.ContentPart) (infergate.Message, error) {
	m := infergate.Message{Role: infergate.RoleAssistant}
	var text strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case llms.TextContent:
			text.WriteString(p.Text)
		case llms.ToolCall:
			if p.FunctionCall == nil {
				return m, fmt.Errorf("tool call %q has no function", p.ID)
			}
			m.ToolCalls = append(m.ToolCalls, infergate.ToolCall{ID: p.ID, Type: "function",
				Function: infergate.FunctionCall{Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Arguments}})
		default:
			return m, fmt.Errorf("an AI message cannot hold %T", p)
		}
	}
	m.Content = text.String()
	l.memo.get(before, &m)
	return m, nil
}
