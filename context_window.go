package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/infergate/infergate-go/internal/quota"
)

// ErrContextWindow matches a conversation that does not fit its model's context window: the
// *ContextWindowError of WithContextGuard, which sent nothing, and a server's own answer that the
// request is longer than the model's context (an *APIError or *StreamError; see ContextWindowError).
var ErrContextWindow = errors.New("infergate: the conversation does not fit the model's context window")

// TokenCounter counts the input tokens of a conversation, as a model's context window holds them.
// It must not keep or change msgs.
type TokenCounter func(msgs []Message) int

// WithTokenCounter sets how WithContextGuard counts a conversation's input tokens. The default is
// the gateway's own admission estimate (a quarter of the characters of the messages' contents, as
// the gateway counts them for its rate limits), which is cheap and rough; the tokens module's
// tokens.CountPrompt gives the count the gateway's nodes bill, with their tokenizer. nil restores
// the default.
func WithTokenCounter(count TokenCounter) Option {
	return func(c *config) { c.tokenCounter = count }
}

// WithContextGuard checks each chat request before it is sent (ChatService.Create and Stream, and
// so GenerateObject, StreamObject and every turn of RunTools): when the model's ContextLength is
// known, as Models.Get gives it (the catalogue the client caches for WithCatalogTTL, completed by
// WithModelFacts and the SDK's table of the gateway's models), and the request's counted input
// (WithTokenCounter) plus its MaxTokens (or "max_completion_tokens" in Extra, the larger if both
// are set; nothing when neither is) exceeds it, nothing is sent and the call fails with a
// *ContextWindowError. A model the catalogue does not list, or lists without a context length, the
// gateway's choice (an empty Model), and a catalogue that cannot be read leave the request unchecked.
//
// With WithFallbackModels, a model whose window is too small is passed over for the next, and is
// listed in ResponseInfo.Fallbacks with its *ContextWindowError; when no model fits, the
// *FallbackError holds one for each. ToolLoop.Compact can shorten a tool loop's transcript instead.
func WithContextGuard() Option {
	return func(c *config) { c.contextGuard = true }
}

// ContextWindowError is a chat request that WithContextGuard did not send: its input and its
// MaxTokens exceed its model's context window. It matches ErrContextWindow, as does a server's
// answer that the context was exceeded: an error with code "context_length_exceeded" or type
// "exceed_context_size_error", or whose message says so (OpenAI's and vLLM's "maximum context
// length", llama.cpp's "context size", "context window", Anthropic's "prompt is too long"), the
// gateway's wrapping of a provider's answer included. A 429 never matches: its limits are per
// minute, not per request.
type ContextWindowError struct {
	Model     string // the model whose window is too small
	Limit     int    // the model's context length, in tokens
	Input     int    // the request's input tokens, as WithTokenCounter's counter counts them
	MaxTokens int    // the tokens the request reserves for the answer; 0 when it sets no bound
	// Messages is the transcript that did not fit, when a tool loop (RunTools) ended on it; nil
	// from the other calls, whose caller holds the request.
	Messages []Message
}

// Error says by how much the request exceeds the window.
func (e *ContextWindowError) Error() string {
	need := e.Input
	if e.MaxTokens > 0 {
		need = addCount(need, e.MaxTokens)
		return fmt.Sprintf("infergate: model %s: %d input tokens and %d for the answer (%d) exceed its context window of %d; nothing was sent",
			modelName(e.Model), e.Input, e.MaxTokens, need, e.Limit)
	}
	return fmt.Sprintf("infergate: model %s: %d input tokens exceed its context window of %d; nothing was sent",
		modelName(e.Model), e.Input, e.Limit)
}

// Is matches ErrContextWindow.
func (e *ContextWindowError) Is(target error) bool { return target == ErrContextWindow }

// CompactError ends a tool loop whose ToolLoop.Compact failed, or returned a transcript the
// counter finds no shorter than the one it was given. Nothing more was sent. It matches
// ErrContextWindow, and errors.As reaches the *ContextWindowError of the turn that did not fit,
// whose Messages is the transcript before Compact, and Compact's own error.
type CompactError struct {
	Window *ContextWindowError // the turn that did not fit
	// Input is the count of the transcript Compact returned, no less than Window.Input; 0 when
	// Compact failed.
	Input int
	Err   error // Compact's error; nil when it returned a transcript no shorter
}

// Error says how Compact failed.
func (e *CompactError) Error() string {
	if e.Err != nil {
		return "infergate: ToolLoop.Compact failed: " + causeText(e.Err)
	}
	return fmt.Sprintf("infergate: ToolLoop.Compact returned a transcript of %d input tokens, no shorter than the %d it was given; nothing was sent",
		e.Input, e.Window.Input)
}

// Unwrap returns the turn's *ContextWindowError and Compact's error.
func (e *CompactError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Window}
	}
	return []error{e.Window, e.Err}
}

// admissionEstimate is the gateway's admission estimate of a chat request's input tokens,
// computed from its messages as the encoder sends them: content always as a string or a list of
// parts. It is the default TokenCounter, and the estimate a limiter admits a request by.
func admissionEstimate(msgs []Message) int {
	chars := 0
	for i := range msgs {
		m := &msgs[i]
		if m.Parts == nil {
			chars += quota.StringContent(m.Content)
			continue
		}
		chars += 2 + 2*max(len(m.Parts)-1, 0) // the list's brackets and separators
		for j := range m.Parts {
			chars += partChars(&m.Parts[j])
		}
	}
	return quota.Estimate(chars)
}

// partChars is what one content part counts: a text or an image part from its fields, any other
// from the JSON it is sent as.
func partChars(p *ContentPart) int {
	switch {
	case p.Raw == nil && p.Type == "text" && p.Text != "" && p.ImageURL == nil:
		return quota.PartLen(quota.Part{Type: "text", Text: p.Text})
	case p.Raw == nil && p.Type == "image_url" && p.Text == "" && p.ImageURL != nil:
		return quota.PartLen(quota.Part{Type: "image_url", ImageURL: p.ImageURL.URL, Detail: p.ImageURL.Detail})
	}
	raw, err := json.Marshal(p)
	if err != nil {
		raw = p.Raw
	}
	return quota.RawPartLen(raw)
}

// countTokens counts msgs with the call's counter.
func (c *config) countTokens(msgs []Message) int {
	if c.tokenCounter != nil {
		return max(c.tokenCounter(msgs), 0)
	}
	return admissionEstimate(msgs)
}

// answerTokens is what a request reserves for its answer: MaxTokens, or "max_completion_tokens"
// in Extra, the larger when both are set; 0 when neither is.
func answerTokens(req *ChatRequest) int {
	n := 0
	if req.MaxTokens != nil {
		n = max(*req.MaxTokens, 0)
	}
	var extra int
	switch v := req.Extra["max_completion_tokens"].(type) {
	case int:
		extra = v
	case int64:
		extra = int(min(v, math.MaxInt32))
	case float64:
		if v > 0 && v < math.MaxInt32 {
			extra = int(v)
		}
	case json.Number:
		if f, err := v.Float64(); err == nil && f > 0 && f < math.MaxInt32 {
			extra = int(f)
		}
	}
	return max(n, extra)
}

// windowGuard checks one request against its models' windows, counting its input once.
type windowGuard struct {
	c       *config
	req     *ChatRequest
	input   int
	counted bool
}

// windowGuard returns the guard of req; nil when WithContextGuard is off, whose check passes.
func (c *config) windowGuard(req *ChatRequest) *windowGuard {
	if !c.contextGuard || c.catalogue == nil {
		return nil
	}
	return &windowGuard{c: c, req: req}
}

// check returns the *ContextWindowError of a request that does not fit model, or nil.
func (g *windowGuard) check(ctx context.Context, model string) error {
	if g == nil {
		return nil
	}
	if e := g.refusal(ctx, model); e != nil {
		return e
	}
	return nil
}

// refusal is check's error, typed; nil when the request fits or the window is unknown.
func (g *windowGuard) refusal(ctx context.Context, model string) *ContextWindowError {
	limit := g.c.contextLength(ctx, model)
	if limit <= 0 {
		return nil
	}
	if !g.counted {
		g.input, g.counted = g.c.countTokens(g.req.Messages), true
	}
	answer := answerTokens(g.req)
	if addCount(g.input, answer) <= limit {
		return nil
	}
	return &ContextWindowError{Model: model, Limit: limit, Input: g.input, MaxTokens: answer}
}

// guardCatalogue is the catalogue the guard reads: the cached one, or one downloaded apart from the
// call's WithResponseInfo, which is the chat request's.
func (s *ModelsService) guardCatalogue(ctx context.Context, c *config) ([]Model, error) {
	if models, ok := s.client.catalog.get(c.catalogKey(), c.catalogTTL); ok {
		return models, nil
	}
	apart := *c
	apart.responseInfos = nil
	return s.catalog(ctx, &apart)
}

// contextLength is model's context window, as Models.Get finds it: the catalogue's, completed with
// WithModelFacts and the built-in table; 0 when unknown.
func (c *config) contextLength(ctx context.Context, model string) int {
	if model == "" {
		return 0
	}
	models, err := c.catalogue(ctx, c)
	if err != nil {
		return 0
	}
	for i := range models {
		m := &models[i]
		if strings.EqualFold(m.ID, model) || (m.BlockchainID != "" && strings.EqualFold(m.BlockchainID, model)) {
			if m.Sources.ContextLength != "" { // the route's own
				return m.ContextLength
			}
			return c.withFacts(*m).ContextLength
		}
	}
	return 0
}

// fit makes a tool loop's next turn fit a window of its models, asking ToolLoop.Compact to
// shorten the transcript while none does. It returns the *ContextWindowError of a turn that does
// not fit and cannot be compacted, or a *CompactError.
func (r *ToolRun) fit(ctx context.Context, req *ChatRequest) error {
	var models []string
	for {
		g := r.cfg.windowGuard(req)
		if g == nil {
			return nil
		}
		if models == nil {
			models = r.cfg.modelList(req.Model)
		}
		// The turn fits when one of its models takes it; Compact aims at the largest window.
		var worst *ContextWindowError
		for _, m := range models {
			e := g.refusal(ctx, m)
			if e == nil {
				return nil
			}
			if worst == nil || e.Limit > worst.Limit {
				worst = e
			}
		}
		worst.Messages = req.Messages
		if r.loop.Compact == nil {
			return worst
		}
		shorter, err := r.loop.Compact(ctx, slices.Clone(req.Messages), worst.Limit)
		if err != nil {
			return &CompactError{Window: worst, Err: err}
		}
		if n := r.cfg.countTokens(shorter); n >= worst.Input {
			return &CompactError{Window: worst, Input: n}
		}
		req.Messages = shorter
		r.result.Messages = shorter
	}
}

// contextPhrases are what servers write when a request is longer than the model's context, in
// lower case: OpenAI's and vLLM's "maximum context length", SGLang's "the model's context length",
// llama.cpp's "exceeds the available context size", "the context window is full", Anthropic's
// "prompt is too long", Bedrock's "input is too long", Gemini's "exceeds the maximum number of
// tokens", and the OpenAI code, which the gateway's wrapping of a provider's body leaves in its
// message.
var contextPhrases = []string{"context_length_exceeded", "context length", "context size", "context window",
	"prompt is too long", "input is too long", "maximum number of tokens"}

// contextExceeded reports whether an error a server answered says the request exceeds the
// model's context. A 429 does not: its token limits are per minute.
func contextExceeded(status int, code, typ, message string) bool {
	if status == http.StatusTooManyRequests || code == "rate_limit_exceeded" {
		return false
	}
	if code == "context_length_exceeded" || typ == "exceed_context_size_error" {
		return true
	}
	lower := strings.ToLower(message)
	for _, p := range contextPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}
