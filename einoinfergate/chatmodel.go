package einoinfergate

import (
	"context"
	"errors"
	"slices"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
)

// typeName is what GetType reports, and what callbacks see as the component's type.
const typeName = "Infergate"

// errNoClient is a constructor's error for a nil client, and what the calls of a model or
// embedder not made by its constructor return: a zero value, or a nil pointer, has no client.
var errNoClient = &infergate.ValidationError{Field: "client", Reason: "is nil: make the model with NewChatModel, the embedder with NewEmbedder"}

// errNoChoice is an answer without a single choice. The SDK reads it as an empty message, but an
// agent would take that for the model's last word and stop without a reason.
var errNoChoice = errors.New("einoinfergate: the answer has no choice")

// ChatModel is an eino model.ToolCallingChatModel answered by the gateway through an
// infergate.Client. It is immutable: WithTools returns a new model, so one ChatModel is safe for
// concurrent use by many goroutines, as the client is.
type ChatModel struct {
	client   *infergate.Client
	model    string
	callOpts []infergate.Option
	tools    []*schema.ToolInfo // as bound, for the callbacks' input
	wire     []infergate.Tool   // the same tools as the request sends them
}

var (
	_ model.ToolCallingChatModel = (*ChatModel)(nil)
	_ components.Typer           = (*ChatModel)(nil)
	_ components.Checker         = (*ChatModel)(nil)
)

// Option configures a ChatModel.
type Option func(*ChatModel)

// WithoutRetries turns the SDK's retries off for this model's calls, for when eino retries them
// itself (the ADK's ModelRetryConfig, say), so that one failure is not retried twice over. By
// default the client's retries apply: a failed call, or a stream that fails before its first
// delta, is sent again with the same idempotency key.
func WithoutRetries() Option {
	return WithCallOptions(infergate.WithMaxRetries(0))
}

// WithCallOptions passes infergate call options to every call the model makes (a header, a
// timeout, fallback models), after the client's own, which they override.
func WithCallOptions(opts ...infergate.Option) Option {
	return func(m *ChatModel) { m.callOpts = append(m.callOpts, opts...) }
}

// NewChatModel returns a chat model that asks client's gateway for model (a name such as
// "llama-3.3-70b", or the catalogue's hex id; empty lets the gateway choose). The client's
// options (retries, fallback models, middleware, an observer) apply to every call.
func NewChatModel(client *infergate.Client, model string, opts ...Option) (*ChatModel, error) {
	if client == nil {
		return nil, errNoClient
	}
	m := &ChatModel{client: client, model: model}
	for _, o := range opts {
		if o != nil {
			o(m)
		}
	}
	m.callOpts = slices.Clip(m.callOpts)
	return m, nil
}

// WithTools returns a model that offers tools to the model on every call; the model it is called
// on is left as it was. A tool whose parameters cannot be encoded as a JSON Schema is an error.
func (m *ChatModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	if m == nil || m.client == nil {
		return nil, errNoClient
	}
	wire, err := toTools(tools)
	if err != nil {
		return nil, err
	}
	n := *m
	n.tools, n.wire = slices.Clone(tools), wire
	return &n, nil
}

// GetType names the implementation, "Infergate", for eino's callbacks and graphs.
func (m *ChatModel) GetType() string { return typeName }

// IsCallbacksEnabled reports true: the model fires eino's callbacks itself (OnStart, then OnEnd
// with the answer and its token usage, OnEndWithStreamOutput for a stream, or OnError), so a graph
// does not wrap it in callbacks of its own.
func (m *ChatModel) IsCallbacksEnabled() bool { return true }

// Generate sends the conversation and returns the model's answer: its content, reasoning
// (ReasoningContent), tool calls (each with its Index), finish reason and token usage, and in
// Extra the model that answered and those that failed before it (see the package's doc). Errors are
// the SDK's, so errors.As finds an *infergate.APIError, *infergate.StreamError or
// *infergate.ValidationError in them; an answer without any choice is an error too.
func (m *ChatModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (out *schema.Message, err error) {
	if m == nil || m.client == nil {
		return nil, errNoClient
	}
	ctx = callbacks.EnsureRunInfo(ctx, m.GetType(), components.ComponentOfChatModel)
	call := m.newCall(opts)
	ctx = callbacks.OnStart(ctx, call.callbackInput(input))
	defer func() {
		if err != nil {
			callbacks.OnError(ctx, err)
		}
	}()
	req, err := call.request(input)
	if err != nil {
		return nil, err
	}
	var info infergate.ResponseInfo
	resp, err := m.client.Chat.Create(ctx, req, withResponseInfo(m.callOpts, &info)...)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, errNoChoice
	}
	out = fromCompletion(resp)
	addServed(out, resp.Model, info.Fallbacks)
	callbacks.OnEnd(ctx, &model.CallbackOutput{Message: out, Config: call.config(), TokenUsage: callbackUsage(out)})
	return out, nil
}
