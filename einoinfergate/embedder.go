package einoinfergate

import (
	"context"
	"slices"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/embedding"

	infergate "github.com/infergate/infergate-go"
)

// Embedder is an eino embedding.Embedder answered by the gateway's embeddings route through an
// infergate.Client. It is safe for concurrent use.
type Embedder struct {
	client *infergate.Client
	model  string
}

var (
	_ embedding.Embedder = (*Embedder)(nil)
	_ components.Typer   = (*Embedder)(nil)
	_ components.Checker = (*Embedder)(nil)
)

// NewEmbedder returns an embedder that asks client's gateway for vectors from model (empty lets
// the gateway choose its default). The client's options apply to every call.
func NewEmbedder(client *infergate.Client, model string) (*Embedder, error) {
	if client == nil {
		return nil, errNoClient
	}
	return &Embedder{client: client, model: model}, nil
}

// GetType names the implementation, "Infergate", for eino's callbacks and graphs.
func (e *Embedder) GetType() string { return typeName }

// IsCallbacksEnabled reports true: the embedder fires eino's callbacks itself, OnEnd with the
// token usage.
func (e *Embedder) IsCallbacksEnabled() bool { return true }

// EmbedStrings returns one vector per text, in order; embedding.WithModel overrides the model for
// one call. Texts beyond infergate.MaxEmbeddingInputs go in several requests. No text at all is no
// call and no vector. Errors are the SDK's (an *infergate.APIError, a *infergate.ValidationError
// for an empty text, say).
func (e *Embedder) EmbedStrings(ctx context.Context, texts []string, opts ...embedding.Option) (vectors [][]float64, err error) {
	if e == nil || e.client == nil {
		return nil, errNoClient
	}
	ctx = callbacks.EnsureRunInfo(ctx, e.GetType(), components.ComponentOfEmbedding)
	o := embedding.GetCommonOptions(&embedding.Options{Model: &e.model}, opts...)
	cfg := &embedding.Config{Model: *o.Model}
	ctx = callbacks.OnStart(ctx, &embedding.CallbackInput{Texts: texts, Config: cfg})
	defer func() {
		if err != nil {
			callbacks.OnError(ctx, err)
		}
	}()
	if len(texts) == 0 {
		vectors = [][]float64{}
		callbacks.OnEnd(ctx, &embedding.CallbackOutput{Embeddings: vectors, Config: cfg})
		return vectors, nil
	}
	// An indexer hands over all its documents at once: more than one request may carry go in
	// several, and the usage reported is their sum, as Usage.Add sums counts.
	vectors = make([][]float64, 0, len(texts))
	var usage infergate.Usage
	for batch := range slices.Chunk(texts, infergate.MaxEmbeddingInputs) {
		resp, err := e.client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: *o.Model, Input: batch})
		if err != nil {
			return nil, err
		}
		for _, d := range resp.Data {
			v := make([]float64, len(d.Embedding))
			for j, x := range d.Embedding {
				v[j] = float64(x)
			}
			vectors = append(vectors, v)
		}
		usage = usage.Add(resp.Usage)
	}
	callbacks.OnEnd(ctx, &embedding.CallbackOutput{Embeddings: vectors, Config: cfg, TokenUsage: &embedding.TokenUsage{
		PromptTokens: usage.PromptTokens, CompletionTokens: usage.CompletionTokens, TotalTokens: usage.TotalTokens}})
	return vectors, nil
}
