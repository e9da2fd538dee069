package genkitinfergate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/firebase/genkit/go/ai"

	infergate "github.com/infergate/infergate-go"
)

// errNoChoice is an answer without a single choice. The SDK reads it as an empty message, but
// genkit would take that for the model's last word and end the tool loop without a reason.
var errNoChoice = errors.New("genkitinfergate: the answer has no choice")

// generate answers one of genkit's model requests: with Chat.Create, or with Chat.Stream when
// genkit asks for a stream (cb is set). Errors are the SDK's, unwrapped.
func (p *Plugin) generate(ctx context.Context, id string, in *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	if p == nil || p.client == nil {
		return nil, errNoClient
	}
	req, err := chatRequest(id, in)
	if err != nil {
		return nil, err
	}
	var info infergate.ResponseInfo
	opts := withResponseInfo(p.callOpts, &info)
	var c *infergate.ChatCompletion
	if cb == nil {
		c, err = p.client.Chat.Create(ctx, req, opts...)
	} else {
		c, err = p.stream(ctx, req, opts, cb)
	}
	if err != nil {
		return nil, err
	}
	if len(c.Choices) == 0 {
		return nil, errNoChoice
	}
	resp := &ai.ModelResponse{Request: in, Message: answer(c.Message(), true), Usage: usage(c)}
	addServed(resp.Message, c.Model, info.Fallbacks)
	resp.FinishReason, resp.FinishMessage = finish(c)
	return resp, nil
}

// stream sends the request with Chat.Stream, with the call's options, and hands genkit each chunk's reasoning and text as
// they come; tool requests go in one last chunk, whole, once the SDK has put their fragments
// together (ids and indexes missing, "{}" placeholders before the arguments). It returns the
// answer the chunks add up to.
func (p *Plugin) stream(ctx context.Context, req infergate.ChatRequest, opts []infergate.Option, cb ai.ModelStreamCallback) (*infergate.ChatCompletion, error) {
	s, err := p.client.Chat.Stream(ctx, req, opts...)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	started, choice := false, 0
	for s.Next() {
		for _, ch := range s.Current().Choices {
			// The answer is the first choice the stream sends, as the SDK's completion's is.
			if !started {
				started, choice = true, ch.Index
			}
			if ch.Index != choice {
				continue
			}
			var parts []*ai.Part
			if ch.Delta.Reasoning != "" {
				parts = append(parts, ai.NewReasoningPart(ch.Delta.Reasoning, nil))
			}
			if ch.Delta.Content != "" {
				parts = append(parts, ai.NewTextPart(ch.Delta.Content))
			}
			if len(parts) > 0 {
				if err := cb(ctx, &ai.ModelResponseChunk{Role: ai.RoleModel, Content: keepReasoningOutOfText(parts)}); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	c := s.Completion()
	if calls := answer(c.Message(), false).Content; len(calls) > 0 {
		if err := cb(ctx, &ai.ModelResponseChunk{Role: ai.RoleModel, Content: calls}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// answer converts the model's message: its reasoning, text and tool requests, in that order, or
// the tool requests alone (withText false); the fields the SDK does not model go in Metadata.
func answer(m infergate.Message, withText bool) *ai.Message {
	out := &ai.Message{Role: ai.RoleModel}
	if withText {
		out.Metadata = withFields(nil, m.Extra)
		if m.Reasoning != "" {
			out.Content = append(out.Content, ai.NewReasoningPart(m.Reasoning, nil))
		}
		if m.Content != "" {
			out.Content = append(out.Content, ai.NewTextPart(m.Content))
		}
	}
	for _, tc := range m.ToolCalls {
		p := ai.NewToolRequestPart(&ai.ToolRequest{Ref: tc.ID, Name: tc.Function.Name, Input: toolInput(tc.Function.Arguments)})
		p.Metadata = withFields(p.Metadata, tc.Extra)
		out.Content = append(out.Content, p)
	}
	out.Content = keepReasoningOutOfText(out.Content)
	return out
}

// keepReasoningOutOfText keeps reasoning out of the text genkit reads: the Text of a message or
// chunk whose content is a single part is that part's text, whatever its kind, so a lone
// reasoning part gets an empty reasoning part after it. Not an empty text part: a reader that
// joins the chunks' adjacent parts of a kind gets the reasoning in one piece.
func keepReasoningOutOfText(parts []*ai.Part) []*ai.Part {
	if len(parts) == 1 && parts[0].IsReasoning() {
		return append(parts, ai.NewReasoningPart("", nil))
	}
	return parts
}

// toolInput decodes a call's arguments for the tool. Arguments that are not JSON stay a string,
// which the tool's input check then rejects with its own message, and which goes back to the
// model unchanged on the next turn.
func toolInput(args string) any {
	if strings.TrimSpace(args) == "" {
		return map[string]any{}
	}
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return args
	}
	return v
}

// finish maps the answer's finish reason onto genkit's; a refusal is the finish message.
func finish(c *infergate.ChatCompletion) (ai.FinishReason, string) {
	refusal := c.Message().Refusal
	switch c.FinishReason() {
	case infergate.FinishReasonStop, infergate.FinishReasonToolCalls, infergate.FinishReasonFunctionCall:
		return ai.FinishReasonStop, refusal
	case infergate.FinishReasonLength:
		return ai.FinishReasonLength, refusal
	case infergate.FinishReasonContentFilter:
		return ai.FinishReasonBlocked, refusal
	case "":
		return ai.FinishReasonUnknown, refusal
	}
	return ai.FinishReasonOther, refusal
}

// usage is the answer's token counts, or the gateway's estimate when the provider sent none; nil
// when the answer carries no count at all.
func usage(c *infergate.ChatCompletion) *ai.GenerationUsage {
	if c.Usage == nil && c.UsageFromProvider == nil && c.UsageFromConsumer == nil {
		return nil
	}
	u := c.UsageOrEstimate()
	out := &ai.GenerationUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CachedContentTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ThoughtsTokens = d.ReasoningTokens
	}
	return out
}
