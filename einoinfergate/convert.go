package einoinfergate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
)

// call is one Generate or Stream: the model and eino's options resolved against it.
type call struct {
	m    *ChatModel
	opts *model.Options
}

func (m *ChatModel) newCall(opts []model.Option) *call {
	name := m.model
	base := &model.Options{Model: &name, Tools: m.tools}
	return &call{m: m, opts: model.GetCommonOptions(base, opts...)}
}

// config is the request's settings as eino's callbacks report them.
func (c *call) config() *model.Config {
	o := c.opts
	cfg := &model.Config{Model: *o.Model, Stop: o.Stop}
	if o.MaxTokens != nil {
		cfg.MaxTokens = *o.MaxTokens
	}
	if o.Temperature != nil {
		cfg.Temperature = *o.Temperature
	}
	if o.TopP != nil {
		cfg.TopP = *o.TopP
	}
	return cfg
}

func (c *call) callbackInput(input []*schema.Message) *model.CallbackInput {
	return &model.CallbackInput{Messages: input, Tools: c.opts.Tools, ToolChoice: c.opts.ToolChoice, Config: c.config()}
}

// request renders the call as the SDK's request. What cannot be sent is a *infergate.ValidationError.
func (c *call) request(input []*schema.Message) (infergate.ChatRequest, error) {
	o := c.opts
	req := infergate.ChatRequest{Model: *o.Model, Stop: o.Stop, MaxTokens: o.MaxTokens}
	if o.Temperature != nil {
		req.Temperature = infergate.Ptr(widen(*o.Temperature))
	}
	if o.TopP != nil {
		req.TopP = infergate.Ptr(widen(*o.TopP))
	}
	req.Messages = make([]infergate.Message, len(input))
	for i, msg := range input {
		var err error
		if req.Messages[i], err = toMessage(i, msg); err != nil {
			return req, err
		}
	}
	tools := c.m.wire
	if !sameTools(o.Tools, c.m.tools) {
		var err error
		if tools, err = toTools(o.Tools); err != nil {
			return req, err
		}
	}
	var err error
	req.Tools, req.ToolChoice, err = toolChoice(tools, o.ToolChoice, o.AllowedToolNames)
	return req, err
}

// sameTools reports whether a call's tools are the model's own, already converted.
func sameTools(a, b []*schema.ToolInfo) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// widen turns eino's float32 settings into the float64 the request sends, by their shortest
// decimal form, so that 0.7 is sent as 0.7 and not as 0.699999988079071.
func widen(f float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return v
}

func invalid(field, format string, args ...any) error {
	return &infergate.ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// toolChoice maps eino's tool choice onto the tools sent: a choice limited to some tools sends
// only those, and forcing exactly one names it.
func toolChoice(tools []infergate.Tool, tc *schema.ToolChoice, allowed []string) ([]infergate.Tool, infergate.ToolChoice, error) {
	if tc == nil {
		return tools, infergate.ToolChoice{}, nil
	}
	if len(allowed) > 0 {
		kept := make([]infergate.Tool, 0, len(allowed))
		for _, name := range allowed {
			i := slices.IndexFunc(tools, func(t infergate.Tool) bool { return t.Function.Name == name })
			if i < 0 {
				return nil, infergate.ToolChoice{}, invalid("AllowedToolNames", "names tool %q, which is not among the tools", name)
			}
			kept = append(kept, tools[i])
		}
		tools = kept
	}
	switch *tc {
	case schema.ToolChoiceForbidden:
		return tools, infergate.ToolChoiceNone, nil
	case schema.ToolChoiceAllowed:
		return tools, infergate.ToolChoiceAuto, nil
	case schema.ToolChoiceForced:
		if len(allowed) == 1 {
			return tools, infergate.ToolChoiceFunction(allowed[0]), nil
		}
		return tools, infergate.ToolChoiceRequired, nil
	}
	return nil, infergate.ToolChoice{}, invalid("ToolChoice", "unknown choice %q", string(*tc))
}

// toTools converts eino's tool descriptions; a tool without parameters, or whose ParamsOneOf holds
// no schema, takes an empty object.
func toTools(tools []*schema.ToolInfo) ([]infergate.Tool, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make([]infergate.Tool, len(tools))
	for i, t := range tools {
		field := fmt.Sprintf("Tools[%d]", i)
		if t == nil {
			return nil, invalid(field, "is nil")
		}
		params := any(map[string]any{"type": "object", "properties": map[string]any{}})
		raw, err := jsonSchema(t.ParamsOneOf)
		if err != nil {
			return nil, invalid(field+".ParamsOneOf", "%v", err)
		}
		if raw != nil {
			params = raw
		}
		out[i] = infergate.Tool{Type: "function", Function: infergate.FunctionDefinition{Name: t.Name, Description: t.Desc, Parameters: params}}
	}
	return out, nil
}

// jsonSchema is a tool's parameters as JSON Schema text; nil when they have no schema at all.
// eino's conversion dereferences each ParameterInfo unchecked, so a nil one in the caller's map
// would panic inside it: that panic is caught and reported as an error.
func jsonSchema(p *schema.ParamsOneOf) (_ json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot be turned into a JSON Schema (a nil ParameterInfo?): %v", r)
		}
	}()
	s, err := p.ToJSONSchema()
	if err != nil {
		return nil, fmt.Errorf("cannot be turned into a JSON Schema: %w", err)
	}
	if s == nil {
		return nil, nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("cannot be encoded as JSON: %w", err)
	}
	return raw, nil
}

// toMessage converts one message of the conversation. Reasoning goes back with an assistant
// message, as the SDK sends it, for thinking models that call tools, and so do the fields of the
// message and its calls that the SDK does not model, from their Extra.
func toMessage(i int, m *schema.Message) (infergate.Message, error) {
	field := fmt.Sprintf("input[%d]", i)
	if m == nil {
		return infergate.Message{}, invalid(field, "is nil")
	}
	out := infergate.Message{Role: infergate.Role(m.Role), Content: m.Content, Name: m.Name,
		ToolCallID: m.ToolCallID, Reasoning: m.ReasoningContent}
	var err error
	if out.Extra, err = readFields(field+".Extra["+strconv.Quote(ExtraFields)+"]", m.Extra[ExtraFields]); err != nil {
		return out, err
	}
	byIndex, err := readCallFields(field+".Extra["+strconv.Quote(ExtraToolCallFields)+"]", m.Extra)
	if err != nil {
		return out, err
	}
	if len(m.ToolCalls) > 0 {
		out.ToolCalls = make([]infergate.ToolCall, len(m.ToolCalls))
		for j, tc := range m.ToolCalls {
			typ := tc.Type
			if typ == "" {
				typ = "function"
			}
			out.ToolCalls[j] = infergate.ToolCall{ID: tc.ID, Type: typ,
				Function: infergate.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}}
			if out.ToolCalls[j].Extra, err = toolCallFields(fmt.Sprintf("%s.ToolCalls[%d]", field, j), &tc, j, byIndex); err != nil {
				return out, err
			}
		}
	}
	switch {
	case len(m.UserInputMultiContent) > 0:
		out.Parts, err = inputParts(field+".UserInputMultiContent", m.UserInputMultiContent)
	case len(m.AssistantGenMultiContent) > 0:
		out.Parts, err = outputParts(field+".AssistantGenMultiContent", m.AssistantGenMultiContent)
	case len(m.MultiContent) > 0:
		out.Parts, err = legacyParts(field+".MultiContent", m.MultiContent)
	}
	if err != nil {
		return out, err
	}
	if out.Parts != nil && m.Content != "" {
		// Parts replace Content on the wire: the text goes first, as a part of its own.
		out.Parts = append([]infergate.ContentPart{infergate.TextPart(m.Content)}, out.Parts...)
		out.Content = ""
	}
	return out, nil
}

func inputParts(field string, parts []schema.MessageInputPart) ([]infergate.ContentPart, error) {
	out := make([]infergate.ContentPart, len(parts))
	for i, p := range parts {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case p.Type == schema.ChatMessagePartTypeText:
			out[i] = infergate.TextPart(p.Text)
		case p.Type == schema.ChatMessagePartTypeImageURL && p.Image != nil:
			u, err := partURL(f, p.Image.MessagePartCommon)
			if err != nil {
				return nil, err
			}
			out[i] = imagePart(u, string(p.Image.Detail))
		default:
			return nil, invalid(f, "a %q part cannot be sent: the gateway takes text and images", p.Type)
		}
	}
	return out, nil
}

func outputParts(field string, parts []schema.MessageOutputPart) ([]infergate.ContentPart, error) {
	out := make([]infergate.ContentPart, len(parts))
	for i, p := range parts {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case p.Type == schema.ChatMessagePartTypeText:
			out[i] = infergate.TextPart(p.Text)
		case p.Type == schema.ChatMessagePartTypeImageURL && p.Image != nil:
			u, err := partURL(f, p.Image.MessagePartCommon)
			if err != nil {
				return nil, err
			}
			out[i] = imagePart(u, "")
		default:
			return nil, invalid(f, "a %q part cannot be sent: the gateway takes text and images", p.Type)
		}
	}
	return out, nil
}

func legacyParts(field string, parts []schema.ChatMessagePart) ([]infergate.ContentPart, error) {
	out := make([]infergate.ContentPart, len(parts))
	for i, p := range parts {
		switch {
		case p.Type == schema.ChatMessagePartTypeText:
			out[i] = infergate.TextPart(p.Text)
		case p.Type == schema.ChatMessagePartTypeImageURL && p.ImageURL != nil && p.ImageURL.URL != "":
			out[i] = imagePart(p.ImageURL.URL, string(p.ImageURL.Detail))
		default:
			return nil, invalid(fmt.Sprintf("%s[%d]", field, i), "a %q part cannot be sent: the gateway takes text and images", p.Type)
		}
	}
	return out, nil
}

// partURL is where a part's media is: its URL, or its inline data as a data URI.
func partURL(field string, c schema.MessagePartCommon) (string, error) {
	switch {
	case c.URL != nil && *c.URL != "":
		return *c.URL, nil
	case c.Base64Data != nil && *c.Base64Data != "":
		if c.MIMEType == "" {
			return "", invalid(field, "inline data needs its MIMEType")
		}
		return "data:" + c.MIMEType + ";base64," + *c.Base64Data, nil
	}
	return "", invalid(field, "has neither a URL nor inline data")
}

func imagePart(u, detail string) infergate.ContentPart {
	p := infergate.ImageURLPart(u)
	if detail != "" && p.ImageURL != nil {
		p.ImageURL.Detail = detail
	}
	return p
}

// fromCompletion converts an answer, the first choice's: what Generate returns and what a
// stream's chunks concatenate to.
func fromCompletion(c *infergate.ChatCompletion) *schema.Message {
	m := c.Message()
	out := &schema.Message{Role: schema.Assistant, Content: m.Content, ReasoningContent: m.Reasoning,
		ResponseMeta: &schema.ResponseMeta{FinishReason: string(c.FinishReason()), Usage: tokenUsage(c)},
		Extra:        withFields(nil, m.Extra)}
	if len(m.ToolCalls) > 0 {
		out.ToolCalls = make([]schema.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			out.ToolCalls[i] = schema.ToolCall{Index: infergate.Ptr(i), ID: tc.ID, Type: tc.Type,
				Function: schema.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
				Extra:    withFields(nil, tc.Extra)}
		}
	}
	return out
}

// tokenUsage is the answer's usage, or the gateway's estimate when the provider sent none; nil
// when the answer carries no count at all.
func tokenUsage(c *infergate.ChatCompletion) *schema.TokenUsage {
	if c == nil || c.Usage == nil && c.UsageFromProvider == nil && c.UsageFromConsumer == nil {
		return nil
	}
	u := c.UsageOrEstimate()
	out := &schema.TokenUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.PromptTokenDetails.CachedTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.CompletionTokensDetails.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

// callbackUsage is a message's usage as eino's callbacks report it.
func callbackUsage(m *schema.Message) *model.TokenUsage {
	if m == nil || m.ResponseMeta == nil || m.ResponseMeta.Usage == nil {
		return nil
	}
	u := m.ResponseMeta.Usage
	return &model.TokenUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
		PromptTokenDetails:      model.PromptTokenDetails{CachedTokens: u.PromptTokenDetails.CachedTokens},
		CompletionTokensDetails: model.CompletionTokensDetails{ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens}}
}
