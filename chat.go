package infergate

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/infergate/infergate-go/internal/jsonscan"
)

// ChatService creates chat completions. Get it as Client.Chat.
type ChatService struct{ client *Client }

// ChatRequest is the body of a chat completion. Optional numeric fields are pointers so that zero
// (temperature 0, say) can be sent while an unset field is left out: set them with Ptr.
type ChatRequest struct {
	// Model is the model's name (e.g. "llama-3.3-70b", or "name:web" for the web-search variant) or
	// its blockchain hex id. Empty lets the gateway choose.
	Model string `json:"model,omitempty"`
	// Messages is the conversation so far; at least one is required.
	Messages         []Message  `json:"messages,omitempty"`
	Temperature      *float64   `json:"temperature,omitempty"`       // 0 to 2; default 1
	TopP             *float64   `json:"top_p,omitempty"`             // 0 to 1; default 1
	N                *int       `json:"n,omitempty"`                 // number of completions; default 1
	Stop             []string   `json:"stop,omitempty"`              // up to 4 stop sequences, always sent as a list
	MaxTokens        *int       `json:"max_tokens,omitempty"`        // upper bound of generated tokens
	PresencePenalty  *float64   `json:"presence_penalty,omitempty"`  // -2 to 2; default 0
	FrequencyPenalty *float64   `json:"frequency_penalty,omitempty"` // -2 to 2; default 0
	Tools            []Tool     `json:"tools,omitempty"`             // functions the model may call
	ToolChoice       ToolChoice `json:"tool_choice,omitzero"`        // which tool is called; unset lets the model decide
	// SessionID runs the request in this provider session; empty uses the client's (WithSessionID)
	// or, failing that, the session tied to the API key.
	SessionID string `json:"session_id,omitempty"`
	// Extra holds fields this type does not model, merged into the request's top-level JSON:
	// "response_format", "seed", "user", "parallel_tool_calls", "reasoning_effort", "logprobs",
	// provider knobs such as "top_k". A key that names a field of ChatRequest (or "stream") is a
	// *ValidationError: set the field instead.
	Extra map[string]any `json:"-"`
}

// wireChatRequest adds what the service methods decide rather than the caller.
type wireChatRequest struct {
	*ChatRequest
	Stream bool `json:"stream,omitempty"`
}

// Ptr returns a pointer to v, for the optional fields of requests: Temperature: infergate.Ptr(0.2).
func Ptr[T any](v T) *T { return &v }

// ChatCompletion is a complete (non-streamed) answer.
type ChatCompletion struct {
	// ID is the completion's id as the provider made it, e.g. "chatcmpl-…".
	ID     string `json:"id"`
	Object string `json:"object"` // "chat.completion"
	// Created is when the completion was made, in Unix seconds.
	Created int64  `json:"created"`
	Model   string `json:"model"` // the model the provider used; may differ from the one asked for
	// Choices holds one answer per alternative asked for (ChatRequest.N); usually one.
	Choices []Choice `json:"choices"`
	// Usage is the provider's token counts; nil when it sent none (see UsageOrEstimate).
	Usage *Usage `json:"usage,omitempty"`
	// SystemFingerprint names the provider's backend configuration, for reproducibility; often
	// empty.
	SystemFingerprint string `json:"system_fingerprint,omitempty"`
	// UsageFromProvider and UsageFromConsumer are the gateway's own token estimates, sent beside Usage.
	UsageFromProvider *Usage `json:"usage_from_provider,omitempty"`
	// UsageFromConsumer is the consumer node's count, the one billed for a non-streamed answer;
	// UsageFromProvider is the provider node's.
	UsageFromConsumer *Usage `json:"usage_from_consumer,omitempty"`

	raw []byte
}

// RawJSON returns the response body exactly as Create received it, for fields this SDK does not
// model. It is nil for a completion assembled from a stream's chunks, and on a nil completion. (The
// body sits in an unexported field: compare completions with go-cmp using
// cmpopts.IgnoreUnexported.)
func (c *ChatCompletion) RawJSON() []byte {
	if c == nil {
		return nil
	}
	return c.raw
}

func (c *ChatCompletion) keepRaw(body []byte) { c.raw = body }

// Text returns the content of the first choice, the usual answer when N is 1; "" when there is no
// choice, and on a nil completion.
func (c *ChatCompletion) Text() string {
	if c == nil || len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Message.Content
}

// Message returns the first choice's assistant message (content, reasoning, tool calls), ready to
// append to the conversation for the next turn. It is an empty assistant message (Role
// RoleAssistant) when there is no choice, and on a nil completion; it never panics. Its lists and
// Extra maps are its own: changing them leaves the completion as it is.
func (c *ChatCompletion) Message() Message {
	if c == nil || len(c.Choices) == 0 {
		return Message{Role: RoleAssistant}
	}
	m := c.Choices[0].Message
	if m.Role == "" {
		m.Role = RoleAssistant
	}
	m.ToolCalls, m.Parts, m.Extra = slices.Clone(m.ToolCalls), slices.Clone(m.Parts), m.Extra.clone()
	for i := range m.ToolCalls {
		m.ToolCalls[i].Extra = m.ToolCalls[i].Extra.clone()
	}
	return m
}

// ToolCalls returns the tool calls of the first choice; nil when there are none, no choice, or no
// completion.
func (c *ChatCompletion) ToolCalls() []ToolCall {
	if c == nil || len(c.Choices) == 0 {
		return nil
	}
	return c.Choices[0].Message.ToolCalls
}

// Reasoning returns the reasoning of the first choice, for thinking models; "" when there is none.
func (c *ChatCompletion) Reasoning() string {
	if c == nil || len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Message.Reasoning
}

// FinishReason returns why the first choice ended; "" when there is no choice (a stream that failed
// before any arrived), it did not say, or the completion is nil.
func (c *ChatCompletion) FinishReason() FinishReason {
	if c == nil || len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].FinishReason
}

// UsageOrEstimate returns the best token count available: Usage, else the provider's estimate, else the
// consumer-side estimate; zero on a nil completion.
func (c *ChatCompletion) UsageOrEstimate() Usage {
	if c == nil {
		return Usage{}
	}
	for _, u := range []*Usage{c.Usage, c.UsageFromProvider, c.UsageFromConsumer} {
		if u != nil {
			return *u
		}
	}
	return Usage{}
}

// Choice is one of the completion's alternative answers.
type Choice struct {
	Index        int          `json:"index"`              // the choice's position among Choices, from 0
	Message      Message      `json:"message"`            // the assistant's answer: text, reasoning, tool calls
	FinishReason FinishReason `json:"finish_reason"`      // why the model stopped; empty when the provider did not say
	Logprobs     *Logprobs    `json:"logprobs,omitempty"` // when the request asked for them
}

// Usage counts tokens.
type Usage struct {
	// PromptTokens counts the input: messages, tools and their schemas.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens counts the tokens generated, reasoning included.
	CompletionTokens int `json:"completion_tokens"`
	// TotalTokens is PromptTokens plus CompletionTokens, as the server counted them.
	TotalTokens int `json:"total_tokens"`
	// PromptTokensDetails is nil unless the provider breaks the prompt's tokens down.
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
	// CompletionTokensDetails is nil unless the provider breaks the generated tokens down.
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails breaks down the prompt's tokens, when the provider reports it.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`          // served from the provider's prompt cache
	AudioTokens  int `json:"audio_tokens,omitempty"` // audio input
}

// CompletionTokensDetails breaks down the generated tokens, when the provider reports it.
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"` // spent thinking, included in CompletionTokens
	// AudioTokens counts audio output.
	AudioTokens int `json:"audio_tokens,omitempty"`
	// AcceptedPredictionTokens counts the tokens of a predicted output that the answer used.
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens,omitempty"`
	// RejectedPredictionTokens counts those it did not use, billed all the same.
	RejectedPredictionTokens int `json:"rejected_prediction_tokens,omitempty"`
}

// FinishReason says why the model stopped.
type FinishReason string

// The reasons a model stops.
const (
	FinishReasonStop          FinishReason = "stop"           // natural end or a stop sequence
	FinishReasonLength        FinishReason = "length"         // MaxTokens or the context window reached
	FinishReasonToolCalls     FinishReason = "tool_calls"     // the model wants tools run
	FinishReasonContentFilter FinishReason = "content_filter" // content was withheld by a filter
	FinishReasonFunctionCall  FinishReason = "function_call"  // legacy form of tool_calls
)

// Create sends the conversation and returns the model's answer.
//
// POST /api/v1/chat/completions
func (s *ChatService) Create(ctx context.Context, req ChatRequest, opts ...Option) (*ChatCompletion, error) {
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	verbatim, err := req.check()
	if err != nil {
		return nil, err
	}
	var out *ChatCompletion
	var served string
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	err = c.chatModels(ctx, &req, verbatim, false, func(ctx context.Context, r *route) error {
		served = r.model
		return exchange(ctx, c, r, func(resp *http.Response, body []byte) (any, error) {
			var wire wireCompletion
			if err := decodeJSON(c, r, resp, body, &wire); err != nil {
				return nil, err
			}
			out = wire.completion()
			if c.thinkTags {
				for i := range out.Choices {
					splitThink(&out.Choices[i].Message)
				}
			}
			return out, nil
		})
	})
	if err != nil {
		return nil, err
	}
	c.recordCost(served, out)
	return out, nil
}

// wireCompletion decodes an answer in one pass: its choices' messages decode straight into their
// wire form, where a Choice would hand each message to Message.UnmarshalJSON to parse again.
type wireCompletion struct {
	ChatCompletion
	Choices []wireAnswerChoice `json:"choices"`
}

type wireAnswerChoice struct {
	Index        int               `json:"index"`
	Message      wireAnswerMessage `json:"message"`
	FinishReason FinishReason      `json:"finish_reason"`
	Logprobs     *Logprobs         `json:"logprobs"`
}

// decodeFast reads the usual answer with jsonscan; it declines (false) what jsonscan declines, and
// encoding/json then decodes the body. envelope is jsonscan's report of the top-level keys.
func (w *wireCompletion) decodeFast(body []byte) (decoded, envelope bool) {
	c, ok := jsonscan.DecodeCompletion(body)
	if !ok {
		return false, false
	}
	cc := &w.ChatCompletion
	// The strings of c share one buffer with the answer's text: metadata gets memory of its own.
	var meta metadataMemory
	cc.ID, cc.Object, cc.Model = meta.fromString(c.ID), meta.fromString(c.Object), meta.fromString(c.Model)
	cc.SystemFingerprint = meta.fromString(c.SystemFingerprint)
	cc.Created = c.Created
	if !rawUsage(c.Usage, &cc.Usage) || !rawUsage(c.UsageFromProvider, &cc.UsageFromProvider) ||
		!rawUsage(c.UsageFromConsumer, &cc.UsageFromConsumer) {
		return false, false
	}
	w.Choices = make([]wireAnswerChoice, len(c.Choices))
	for i := range c.Choices {
		fc, wc := &c.Choices[i], &w.Choices[i]
		wc.Index, wc.FinishReason = int(fc.Index), FinishReason(meta.fromString(fc.FinishReason))
		if fc.Logprobs != nil && json.Unmarshal(fc.Logprobs, &wc.Logprobs) != nil {
			return false, false
		}
		m := &wc.Message
		m.Role, m.Content.text, m.Refusal = Role(meta.fromString(fc.Role)), fc.Content, fc.Refusal
		m.Reasoning1, m.Reasoning2 = fc.Reasoning1, fc.Reasoning2
		if len(fc.Extra) > 0 {
			m.Extra = fieldsOf(fc.Extra, messageKeys)
		}
		if fc.ToolCalls != nil {
			m.ToolCalls = make([]ToolCall, len(fc.ToolCalls))
			for j, call := range fc.ToolCalls {
				m.ToolCalls[j] = ToolCall{ID: meta.fromString(call.ID), Type: meta.fromString(call.Type),
					Function: FunctionCall{Name: meta.fromString(call.Name), Arguments: call.Arguments}}
				if len(call.Extra) > 0 {
					m.ToolCalls[j].Extra = fieldsOf(call.Extra, toolCallKeys)
				}
			}
		}
	}
	return true, c.Envelope
}

// rawUsage decodes a usage object jsonscan passed on raw: the three counts with jsonscan, anything
// more (a breakdown of the tokens) with encoding/json.
func rawUsage(raw []byte, dst **Usage) bool {
	if raw == nil {
		return true
	}
	if u, ok := jsonscan.DecodeUsage(raw); ok {
		*dst = &Usage{PromptTokens: int(u.Prompt), CompletionTokens: int(u.Completion), TotalTokens: int(u.Total)}
		return true
	}
	*dst = new(Usage)
	return json.Unmarshal(raw, *dst) == nil
}

func (w *wireCompletion) completion() *ChatCompletion {
	out := w.ChatCompletion
	out.Choices = make([]Choice, len(w.Choices))
	for i := range w.Choices {
		wc := &w.Choices[i]
		out.Choices[i] = Choice{Index: wc.Index, Message: wc.Message.message(), FinishReason: wc.FinishReason, Logprobs: wc.Logprobs}
	}
	return &out
}

// encodeChat validates the request and renders its body.
func (c *config) encodeChat(req *ChatRequest, stream bool) ([]byte, error) {
	verbatim, err := req.check()
	if err != nil {
		return nil, err
	}
	return c.renderChat(req, verbatim, stream)
}

// renderChat renders the body of a request already validated; verbatim is what its check proved
// of its tools' parameters (see appendTools).
func (c *config) renderChat(req *ChatRequest, verbatim uint64, stream bool) ([]byte, error) {
	if req.SessionID == "" && c.sessionID != "" {
		withSession := *req
		withSession.SessionID = c.sessionID
		req = &withSession
	}
	body := make([]byte, 0, encodedSize(req.Messages)+toolsSize(req.Tools))
	body = append(body, `{"messages":[`...)
	var err error
	for i := range req.Messages {
		if i > 0 {
			body = append(body, ',')
		}
		if body, err = appendMessage(body, &req.Messages[i]); err != nil {
			return nil, errorf("infergate: encoding chat request: %w", err)
		}
	}
	body = append(body, ']')
	if body, err = appendChatFields(body, req, verbatim, stream); err != nil {
		return nil, errorf("infergate: encoding chat request: %w", err)
	}
	return mergeExtra(append(body, '}'), req.Extra)
}

// encodedSize guesses the encoded size of messages, so that the body is allocated once.
func encodedSize(msgs []Message) int {
	n := 16
	for i := range msgs {
		m := &msgs[i]
		n += 64 + len(m.Content) + len(m.Reasoning) + len(m.Name) + len(m.ToolCallID) + fieldsSize(m.Extra)
		for _, tc := range m.ToolCalls {
			n += 64 + len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments) + fieldsSize(tc.Extra)
		}
	}
	return n + n/16 + 256 // room for escapes and the other fields
}

// Validate checks the request against the API's rules. Create and Stream call it before sending.
func (r *ChatRequest) Validate() error {
	_, err := r.check()
	return err
}

// check is Validate, which also reports the tools whose parameters it proved to be written as they
// are (bit i for Tools[i], see Tool.validate), so that the request is sent without proving it again.
func (r *ChatRequest) check() (verbatim uint64, err error) {
	if len(r.Messages) == 0 {
		return 0, invalid("Messages", "at least one message is required")
	}
	for i := range r.Messages {
		if err := r.Messages[i].validate(i); err != nil {
			return 0, err
		}
	}
	checks := []struct {
		name     string
		v        *float64
		min, max float64
	}{
		{"Temperature", r.Temperature, 0, 2},
		{"TopP", r.TopP, 0, 1},
		{"PresencePenalty", r.PresencePenalty, -2, 2},
		{"FrequencyPenalty", r.FrequencyPenalty, -2, 2},
	}
	for _, c := range checks {
		if c.v != nil && (math.IsNaN(*c.v) || *c.v < c.min || *c.v > c.max) {
			return 0, invalid(c.name, "must be between %g and %g, got %g", c.min, c.max, *c.v)
		}
	}
	if r.N != nil && *r.N < 1 {
		return 0, invalid("N", "must be at least 1, got %d", *r.N)
	}
	if r.MaxTokens != nil && *r.MaxTokens < 1 {
		return 0, invalid("MaxTokens", "must be at least 1, got %d", *r.MaxTokens)
	}
	if len(r.Stop) > 4 {
		return 0, invalid("Stop", "at most 4 sequences, got %d", len(r.Stop))
	}
	for i := range r.Tools {
		proven, err := r.Tools[i].validate(i)
		if err != nil {
			return 0, err
		}
		if proven && i < 64 {
			verbatim |= 1 << i
		}
	}
	if err := checkExtra(r.Extra, reflect.TypeFor[wireChatRequest]()); err != nil {
		return 0, err
	}
	return verbatim, r.validateToolChoice()
}

func (r *ChatRequest) validateToolChoice() error {
	t := r.ToolChoice
	switch {
	case t.IsZero():
		return nil
	case t.function != "":
		for _, tool := range r.Tools {
			if tool.Function.Name == t.function {
				return nil
			}
		}
		return invalid("ToolChoice", "names function %q, which is not in Tools", t.function)
	case t.mode == "none", t.mode == "auto":
		return nil
	case t.mode == "required":
		if len(r.Tools) == 0 {
			return invalid("ToolChoice", `"required" needs at least one tool`)
		}
		return nil
	}
	return invalid("ToolChoice", "unknown mode %q", t.mode)
}

// validate checks Tools[i] and reports whether its parameters are a json.RawMessage that
// encoding/json writes as it is (parametersJSON). The field's name is only written for an error, as
// a request is checked on every call.
func (t *Tool) validate(i int) (verbatim bool, err error) {
	field := func() string { return "Tools[" + strconv.Itoa(i) + "]" }
	if t.Type != "function" && t.Type != "" {
		return false, invalid(field()+".Type", `must be "function" (or empty), got %q`, t.Type)
	}
	if !isFunctionName(t.Function.Name) {
		return false, invalid(field()+".Function.Name", "%q must be 1 to 64 letters, digits, '_' or '-'", t.Function.Name)
	}
	if t.Function.Parameters == nil {
		return false, nil
	}
	raw, verbatim, err := parametersJSON(t.Function.Parameters)
	if err != nil {
		return false, invalid(field()+".Function.Parameters", "cannot be encoded as JSON: %v", err)
	}
	// What encoding/json writes is valid and compact: an object is what starts with '{'.
	if raw[0] != '{' {
		return false, invalid(field()+".Function.Parameters", "must be a JSON Schema object, got %.40s", raw)
	}
	return verbatim, nil
}
