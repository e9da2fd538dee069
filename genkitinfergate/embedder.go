package genkitinfergate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/api"

	infergate "github.com/infergate/infergate-go"
)

func (p *Plugin) newEmbedder(id string, opts *ai.EmbedderOptions) ai.Embedder {
	if opts == nil {
		opts = &ai.EmbedderOptions{Label: label(id), Supports: &ai.EmbedderSupports{Input: []string{"text"}}}
	}
	return ai.NewEmbedder(api.NewName(provider, id), opts, func(ctx context.Context, req *ai.EmbedRequest) (*ai.EmbedResponse, error) {
		return p.embed(ctx, id, req)
	})
}

// embed returns one vector per document, in order, with Embeddings.Create: a document's text is
// its text parts joined. Documents beyond infergate.MaxEmbeddingInputs go in several requests.
func (p *Plugin) embed(ctx context.Context, id string, req *ai.EmbedRequest) (*ai.EmbedResponse, error) {
	if p == nil || p.client == nil {
		return nil, errNoClient
	}
	if req == nil {
		return nil, invalid("request", "is nil")
	}
	if o, ok := req.Options.(map[string]any); req.Options != nil && (!ok || len(o) > 0) {
		return nil, invalid("Options", "the embedder takes no options")
	}
	texts := make([]string, len(req.Input))
	for i, doc := range req.Input {
		if doc == nil {
			return nil, invalid(fmt.Sprintf("Input[%d]", i), "is nil")
		}
		var b strings.Builder
		for j, part := range doc.Content {
			if part == nil || !part.IsText() {
				return nil, invalid(fmt.Sprintf("Input[%d].Content[%d]", i, j), "a %s part cannot be embedded: the gateway embeds text", partKind(part))
			}
			b.WriteString(part.Text)
		}
		texts[i] = b.String()
	}
	out := &ai.EmbedResponse{Embeddings: make([]*ai.Embedding, 0, len(texts))}
	for batch := range slices.Chunk(texts, infergate.MaxEmbeddingInputs) {
		resp, err := p.client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: id, Input: batch}, p.callOpts...)
		if err != nil {
			return nil, err
		}
		for _, d := range resp.Data {
			out.Embeddings = append(out.Embeddings, &ai.Embedding{Embedding: d.Embedding})
		}
	}
	return out, nil
}
