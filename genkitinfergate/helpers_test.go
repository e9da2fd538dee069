package genkitinfergate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/genkitinfergate"
)

// model is the name genkit knows the fake's default model by.
const model = "infergate/" + gatewaytest.DefaultModel

// newGenkit starts a fake gateway for t and a genkit with the plugin on it. genkit.Init keeps a
// goroutine until its context ends: t.Context() ends it with the test.
func newGenkit(t *testing.T, opts ...genkitinfergate.Option) (*genkit.Genkit, *gatewaytest.Server) {
	t.Helper()
	srv := gatewaytest.New(t)
	return genkit.Init(t.Context(), genkit.WithPlugins(genkitinfergate.New(srv.Client(), opts...))), srv
}

// generate asks the default model with the given options.
func generate(g *genkit.Genkit, opts ...ai.GenerateOption) (*ai.ModelResponse, error) {
	return genkit.Generate(context.Background(), g, append([]ai.GenerateOption{ai.WithModelName(model)}, opts...)...)
}

// streamed generates with a stream callback and returns the response and the chunks it saw.
func streamed(g *genkit.Genkit, opts ...ai.GenerateOption) (*ai.ModelResponse, []*ai.ModelResponseChunk, error) {
	var chunks []*ai.ModelResponseChunk
	resp, err := generate(g, append(opts, ai.WithStreaming(func(_ context.Context, c *ai.ModelResponseChunk) error {
		chunks = append(chunks, c)
		return nil
	}))...)
	return resp, chunks, err
}

// rawStream is a text/event-stream body of the given data events, [DONE] last, for the shapes the
// fake does not script (fragments without an index, usage with cached and reasoning tokens).
func rawStream(events ...string) gatewaytest.ErrorReply {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return gatewaytest.ErrorReply{Status: 200, ContentType: "text/event-stream", Body: b.String()}
}

// rawJSON is a 200 answer with the given body.
func rawJSON(body string) gatewaytest.ErrorReply {
	return gatewaytest.ErrorReply{Status: 200, Body: body}
}

// kinds lists the kinds of a message's parts, for failure messages and comparisons.
func kinds(parts []*ai.Part) []ai.PartKind {
	out := make([]ai.PartKind, len(parts))
	for i, p := range parts {
		out[i] = p.Kind
	}
	return out
}
