package lcinfergate

import (
	"context"
	"errors"

	infergate "github.com/infergate/infergate-go"
	"github.com/tmc/langchaingo/llms"
)

// errNoChoices is an answer without a single choice, which no langchaingo caller can read.
var errNoChoices = errors.New("the answer has no choices")

// response converts an answer's choices, with usage in GenerationInfo under the keys of
// langchaingo's OpenAI adapter and the model that answered under "model", and keeps the reasoning of those that call tools for the next turn
// of conv, the conversation the answer follows.
func (l *LLM) response(conv conversation, c *infergate.ChatCompletion) (*llms.ContentResponse, error) {
	if c == nil || len(c.Choices) == 0 {
		return nil, errNoChoices
	}
	usage := c.UsageOrEstimate()
	out := &llms.ContentResponse{Choices: make([]*llms.ContentChoice, len(c.Choices))}
	for i, ch := range c.Choices {
		m := ch.Message
		choice := &llms.ContentChoice{
			Content:          m.Content,
			ReasoningContent: m.Reasoning,
			StopReason:       string(ch.FinishReason),
			GenerationInfo:   generationInfo(usage, m.Reasoning),
		}
		addFields(choice.GenerationInfo, m)
		for _, tc := range m.ToolCalls {
			choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: tc.ID, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
		}
		if len(choice.ToolCalls) > 0 {
			choice.FuncCall = choice.ToolCalls[0].FunctionCall
		}
		l.memo.put(conv, m)
		out.Choices[i] = choice
	}
	addModel(out, c.Model)
	return out, nil
}

// addFields shows the fields of the message and its calls that the SDK does not model in
// GenerationInfo, as JSON text: "ExtraFields" the message's object, "ToolCallExtraFields" a list of
// the calls' objects in their order. They go back with the answer without being copied from there.
func addFields(info map[string]any, m infergate.Message) {
	if b, err := m.Extra.MarshalJSON(); err == nil && len(m.Extra) > 0 {
		info["ExtraFields"] = string(b)
	}
	calls, some := []byte{'['}, false
	for i, tc := range m.ToolCalls {
		if i > 0 {
			calls = append(calls, ',')
		}
		b, err := tc.Extra.MarshalJSON()
		if err != nil || len(tc.Extra) == 0 {
			b = []byte("{}")
		}
		calls, some = append(calls, b...), some || len(tc.Extra) > 0
	}
	if some {
		info["ToolCallExtraFields"] = string(append(calls, ']'))
	}
}

// generationInfo holds the keys langchaingo's OpenAI adapter fills, so that code reading them (and
// llms.ExtractThinkingTokens) works unchanged.
func generationInfo(u infergate.Usage, reasoning string) map[string]any {
	var pd infergate.PromptTokensDetails
	if u.PromptTokensDetails != nil {
		pd = *u.PromptTokensDetails
	}
	var cd infergate.CompletionTokensDetails
	if u.CompletionTokensDetails != nil {
		cd = *u.CompletionTokensDetails
	}
	return map[string]any{
		"CompletionTokens":                   u.CompletionTokens,
		"PromptTokens":                       u.PromptTokens,
		"TotalTokens":                        u.TotalTokens,
		"ReasoningTokens":                    cd.ReasoningTokens,
		"PromptAudioTokens":                  pd.AudioTokens,
		"ThinkingContent":                    reasoning,
		"ThinkingTokens":                     cd.ReasoningTokens,
		"PromptCachedTokens":                 pd.CachedTokens,
		"CompletionAudioTokens":              cd.AudioTokens,
		"CompletionReasoningTokens":          cd.ReasoningTokens,
		"CompletionAcceptedPredictionTokens": cd.AcceptedPredictionTokens,
		"CompletionRejectedPredictionTokens": cd.RejectedPredictionTokens,
	}
}

// jsonAnswer answers in JSON mode the way the SDK's typed answers do on a gateway that drops
// response_format: GenerateObject in ObjectModePrompt asks for a JSON object in a system message,
// finds it in the answer's text and sends a failed answer back to be repaired.
func (l *LLM) jsonAnswer(ctx context.Context, req infergate.ChatRequest, conv conversation, opts *llms.CallOptions, callOpts []infergate.Option) (*llms.ContentResponse, error) {
	if len(req.Tools) > 0 {
		return nil, &infergate.ValidationError{Field: "JSONMode", Reason: "answers with a JSON object, not tool calls: leave out the tools or JSON mode"}
	}
	obj, err := infergate.GenerateObject[map[string]any](ctx, l.client.Chat, req,
		infergate.ObjectSpec{Name: "json_object", Mode: infergate.ObjectModePrompt}, callOpts...)
	if err != nil {
		return nil, err
	}
	if obj.Completion == nil || len(obj.Completion.Choices) == 0 {
		return nil, errNoChoices
	}
	completion := *obj.Completion
	first := completion.Choices[0]
	first.Message.Content = string(obj.Raw)
	completion.Choices = []infergate.Choice{first}
	completion.Usage = &obj.Usage // every turn's, repairs included
	// JSON mode refuses tools: the memo keeps only the fields of the answer, sent back by its text.
	resp, err := l.response(conv, &completion)
	if err != nil {
		return nil, err
	}
	if err := deliver(ctx, opts, "", string(obj.Raw)); err != nil {
		return nil, err
	}
	return resp, nil
}
