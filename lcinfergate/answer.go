package lcinfergate

import (
	"context"
	"errors"
	"strings"
	"sync"

	infergate "github.com/infergate/infergate-go"
	"github.com/tmc/langchaingo/llms"
)

// errNoChoices is an answer without a single choice, which no langchaingo caller can read.
var errNoChoices = errors.New("the answer has no choices")

// response converts an answer's choices, with usage in GenerationInfo under the keys of
// langchaingo's OpenAI adapter, and keeps the reasoning of those that call tools for the next turn.
func (l *LLM) response(c *infergate.ChatCompletion) (*llms.ContentResponse, error) {
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
		for _, tc := range m.ToolCalls {
			choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: tc.ID, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
		}
		if len(choice.ToolCalls) > 0 {
			choice.FuncCall = choice.ToolCalls[0].FunctionCall
			l.memo.put(m.ToolCalls, m.Reasoning)
		}
		out.Choices[i] = choice
	}
	return out, nil
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
func (l *LLM) jsonAnswer(ctx context.Context, req infergate.ChatRequest, opts *llms.CallOptions, callOpts []infergate.Option) (*llms.ContentResponse, error) {
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
	resp, err := l.response(&completion)
	if err != nil {
		return nil, err
	}
	if err := deliver(ctx, opts, "", string(obj.Raw)); err != nil {
		return nil, err
	}
	return resp, nil
}

// memoSize bounds the answers whose reasoning an LLM keeps: a conversation sends back its recent
// turns, and older ones need not stay in memory.
const memoSize = 1024

// reasoningMemo keeps the reasoning of answers that called tools, keyed by their calls, because
// llms.MessageContent has no place for it: when a caller sends such an answer back as an AI
// message, its calls find the reasoning again, and the SDK sends it with them.
type reasoningMemo struct {
	mu    sync.Mutex
	size  int
	byKey map[string]string
	order []string // keys, oldest first
}

func newReasoningMemo(size int) *reasoningMemo {
	return &reasoningMemo{size: size, byKey: map[string]string{}}
}

// key identifies a turn's calls by their ids, names and arguments, which callers copy unchanged
// into the AI message they send back; ids alone would not do for providers that send none.
func key(calls []infergate.ToolCall) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString(c.ID)
		b.WriteByte(0)
		b.WriteString(c.Function.Name)
		b.WriteByte(0)
		b.WriteString(c.Function.Arguments)
		b.WriteByte(1)
	}
	return b.String()
}

func (m *reasoningMemo) put(calls []infergate.ToolCall, reasoning string) {
	if reasoning == "" || len(calls) == 0 {
		return
	}
	k := key(calls)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byKey[k]; !ok {
		m.order = append(m.order, k)
	}
	m.byKey[k] = reasoning
	for len(m.order) > m.size {
		delete(m.byKey, m.order[0])
		m.order = m.order[1:]
	}
}

func (m *reasoningMemo) get(calls []infergate.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	k := key(calls)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byKey[k]
}
