package lcinfergate

import (
	"context"
	"fmt"
	"slices"

	infergate "github.com/infergate/infergate-go"
	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"
)

// LLM is an infergate client as a langchaingo model. It is safe for concurrent use, as the client
// it wraps is.
type LLM struct {
	client         *infergate.Client
	model          string
	embeddingModel string
	callOpts       []infergate.Option
	memo           *reasoningMemo
}

var (
	_ llms.Model                = (*LLM)(nil)
	_ llms.ReasoningModel       = (*LLM)(nil)
	_ embeddings.EmbedderClient = (*LLM)(nil)
)

// Option configures an LLM.
type Option func(*LLM)

// WithoutRetries turns the SDK's retries off for the adapter's calls, for frameworks that retry
// themselves and would otherwise multiply the attempts. Without it the client's retries apply.
func WithoutRetries() Option {
	return WithCallOptions(infergate.WithMaxRetries(0))
}

// WithCallOptions passes infergate options to every call the adapter makes, after the client's own
// (WithFallbackModels, WithTimeout, WithHeader and the other per-call options).
func WithCallOptions(opts ...infergate.Option) Option {
	return func(l *LLM) { l.callOpts = append(l.callOpts, opts...) }
}

// WithEmbeddingModel names the model CreateEmbedding uses; without it the gateway chooses.
func WithEmbeddingModel(model string) Option {
	return func(l *LLM) { l.embeddingModel = model }
}

// New returns client as a langchaingo model that asks model (a name or a catalogue hex id; empty
// lets the gateway choose) unless a call names another with llms.WithModel.
func New(client *infergate.Client, model string, opts ...Option) *LLM {
	l := &LLM{client: client, model: model, memo: newReasoningMemo(memoSize, memoBytes)}
	for _, o := range opts {
		if o != nil {
			o(l)
		}
	}
	l.callOpts = slices.Clip(l.callOpts) // calls may append to them, never into one another's
	return l
}

// errNoClient is what every call of an LLM made with a nil client returns, instead of panicking.
var errNoClient = fmt.Errorf("lcinfergate: %w", &infergate.ValidationError{Field: "client", Reason: "is nil: pass an *infergate.Client to New"})

// Call answers a single prompt with the first choice's text.
func (l *LLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, l, prompt, options...)
}

// SupportsReasoning reports true: the gateway passes on the thinking of every model that sends it,
// in ContentChoice.ReasoningContent and to StreamingReasoningFunc.
func (l *LLM) SupportsReasoning() bool { return true }

// GenerateContent sends the conversation as one chat completion, streamed when the call options
// hold a StreamingFunc or StreamingReasoningFunc, and returns its choices.
func (l *LLM) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	if l == nil || l.client == nil {
		return nil, errNoClient
	}
	var opts llms.CallOptions
	for _, o := range options {
		if o != nil {
			o(&opts)
		}
	}
	req, conv, err := l.request(messages, &opts)
	var info infergate.ResponseInfo
	callOpts := withResponseInfo(l.callOpts, &info)
	var resp *llms.ContentResponse
	switch {
	case err != nil:
	case opts.JSONMode:
		resp, err = l.jsonAnswer(ctx, req, conv, &opts, callOpts)
	case opts.StreamingFunc != nil || opts.StreamingReasoningFunc != nil:
		resp, err = l.stream(ctx, req, conv, &opts, callOpts)
	default:
		var completion *infergate.ChatCompletion
		completion, err = l.client.Chat.Create(ctx, req, callOpts...)
		if err == nil {
			resp, err = l.response(conv, completion)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lcinfergate: %w", err)
	}
	addFallbacks(resp, info.Fallbacks)
	return resp, nil
}

// stream reads the answer as a stream, handing choice 0's content and reasoning to the call's
// functions as they come; the stream's own reassembly gives the final choices.
func (l *LLM) stream(ctx context.Context, req infergate.ChatRequest, conv conversation, opts *llms.CallOptions, callOpts []infergate.Option) (*llms.ContentResponse, error) {
	stream, err := l.client.Chat.Stream(ctx, req, callOpts...)
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	for stream.Next() {
		// Chunks already read keep coming after ctx ends; a caller that cancels from a streaming
		// function means no more of them.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk := stream.Current()
		for i := range chunk.Choices {
			c := &chunk.Choices[i]
			if c.Index != 0 {
				continue
			}
			if err := deliver(ctx, opts, c.Delta.Reasoning, c.Delta.Content); err != nil {
				return nil, err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return l.response(conv, stream.Completion())
}

// deliver hands one delta to the streaming functions, in the order langchaingo's OpenAI adapter
// calls them: the content to StreamingFunc, then both to StreamingReasoningFunc. Tool calls are not
// streamed as text: they are in the response, whole.
func deliver(ctx context.Context, opts *llms.CallOptions, reasoning, content string) error {
	if reasoning == "" && content == "" {
		return nil
	}
	if opts.StreamingFunc != nil && content != "" {
		if err := opts.StreamingFunc(ctx, []byte(content)); err != nil {
			return err
		}
	}
	if opts.StreamingReasoningFunc != nil {
		return opts.StreamingReasoningFunc(ctx, []byte(reasoning), []byte(content))
	}
	return nil
}

// CreateEmbedding returns one vector per text, so that an LLM serves as an
// embeddings.EmbedderClient. Texts beyond infergate.MaxEmbeddingInputs go in several requests; the
// SDK checks each answer holds one vector per text, in order.
func (l *LLM) CreateEmbedding(ctx context.Context, texts []string) ([][]float32, error) {
	if l == nil || l.client == nil {
		return nil, errNoClient
	}
	out := make([][]float32, 0, len(texts))
	for batch := range slices.Chunk(texts, infergate.MaxEmbeddingInputs) {
		resp, err := l.client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: l.embeddingModel, Input: batch}, l.callOpts...)
		if err != nil {
			return nil, fmt.Errorf("lcinfergate: %w", err)
		}
		for _, e := range resp.Data {
			out = append(out, e.Embedding)
		}
	}
	return out, nil
}
