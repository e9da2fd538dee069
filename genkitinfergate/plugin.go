package genkitinfergate

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/api"
	"github.com/firebase/genkit/go/core/logger"
	"github.com/firebase/genkit/go/genkit"

	infergate "github.com/infergate/infergate-go"
)

// provider is the plugin's name, and the prefix of the names of its models and embedders.
const provider = "infergate"

// errNoClient is what the models and embedders of a plugin made without a client return: New
// takes a nil client without panicking, as genkit.Init would otherwise die far from the mistake.
var errNoClient = &infergate.ValidationError{Field: "client", Reason: "is nil: give New an *infergate.Client"}

// Plugin is a genkit plugin whose models and embedders are the gateway's, answered through an
// infergate.Client. Give it to genkit.Init with genkit.WithPlugins. It is safe for concurrent use.
type Plugin struct {
	client   *infergate.Client
	callOpts []infergate.Option
}

var _ api.DynamicPlugin = (*Plugin)(nil)

// Option configures a Plugin.
type Option func(*Plugin)

// WithoutRetries turns the SDK's retries off for the plugin's calls, for when the application
// retries them itself (genkit's retry middleware, say), so that one failure is not retried twice
// over. By default the client's retries apply: a failed call, or a stream that fails before its
// first delta, is sent again with the same idempotency key.
func WithoutRetries() Option {
	return WithCallOptions(infergate.WithMaxRetries(0))
}

// WithCallOptions passes infergate call options to every call the plugin makes (a header, a
// timeout, fallback models), after the client's own, which they override.
func WithCallOptions(opts ...infergate.Option) Option {
	return func(p *Plugin) { p.callOpts = append(p.callOpts, opts...) }
}

// New returns a plugin that asks client's gateway. The client's options (retries, fallback
// models, middleware, an observer) apply to every call.
func New(client *infergate.Client, opts ...Option) *Plugin {
	p := &Plugin{client: client}
	for _, o := range opts {
		if o != nil {
			o(p)
		}
	}
	p.callOpts = slices.Clip(p.callOpts)
	return p
}

// Name is "infergate": the plugin's models are named "infergate/<model id>".
func (p *Plugin) Name() string { return provider }

// Init defines nothing up front: the catalogue's models are resolved when first named, so that
// starting genkit sends no request to the gateway.
func (p *Plugin) Init(context.Context) []api.Action { return nil }

// ListActions lists the catalogue (Models.List): a chat model for each text model, and an
// embedder for each embedding model; speech models are left out. A catalogue that cannot be read
// lists nothing, and the error is logged to genkit's logger.
func (p *Plugin) ListActions(ctx context.Context) []api.ActionDesc {
	if p == nil || p.client == nil {
		return nil
	}
	models, err := p.client.Models.List(ctx, p.callOpts...)
	if err != nil {
		logger.FromContext(ctx).Error("infergate: listing the model catalogue", "err", err)
		return nil
	}
	var out []api.ActionDesc
	for _, m := range models {
		switch m.Type {
		case infergate.ModelTypeEmbedding:
			out = append(out, describe(embedderTemplate(), api.ActionTypeEmbedder, m.ID))
		case infergate.ModelTypeLLM, infergate.ModelTypeUnknown, "":
			out = append(out, describe(modelTemplate(), api.ActionTypeModel, m.ID))
		}
	}
	return out
}

// modelTemplate and embedderTemplate describe a model and an embedder as ResolveAction makes them.
// genkit infers the JSON Schemas of a new action's input and output anew each time, some 1.5 ms
// a model: ListActions describes the catalogue's entries from these instead, schemas shared.
var (
	modelTemplate = sync.OnceValue(func() api.ActionDesc {
		return (&Plugin{}).newModel("_", nil).(api.Action).Desc()
	})
	embedderTemplate = sync.OnceValue(func() api.ActionDesc {
		return (&Plugin{}).newEmbedder("_", nil).(api.Action).Desc()
	})
)

// describe is template for the model or embedder id: its key, name and label, the one part of
// the metadata that names it.
func describe(template api.ActionDesc, typ api.ActionType, id string) api.ActionDesc {
	d := template
	d.Key, d.Name = api.NewKey(typ, provider, id), api.NewName(provider, id)
	d.Metadata = maps.Clone(template.Metadata)
	for k, v := range d.Metadata {
		if m, ok := v.(map[string]any); ok && m["label"] != nil {
			m = maps.Clone(m)
			m["label"] = label(id)
			d.Metadata[k] = m
		}
	}
	return d
}

func label(id string) string { return "infergate - " + id }

// ResolveAction makes the model or embedder name names, a catalogue id ("llama-3.3-70b") or hex
// id, without asking the gateway whether it knows it: a name it does not know is the gateway's
// error when the model is called.
func (p *Plugin) ResolveAction(atype api.ActionType, name string) api.Action {
	if p == nil || name == "" {
		return nil
	}
	switch atype {
	case api.ActionTypeModel:
		return p.newModel(name, nil).(api.Action)
	case api.ActionTypeEmbedder:
		return p.newEmbedder(name, nil).(api.Action)
	}
	return nil
}

// DefineModel registers the gateway's model id in g as "infergate/<id>", with opts describing it
// (nil: text, images, tools and tool choice, system messages, several turns), for a model whose
// description differs from those ListActions gives. As genkit.DefineModel, it panics when that
// name is already registered.
func (p *Plugin) DefineModel(g *genkit.Genkit, id string, opts *ai.ModelOptions) ai.Model {
	m := p.newModel(id, opts)
	genkit.RegisterAction(g, m)
	return m
}

// DefineEmbedder registers the gateway's embedding model id in g as "infergate/<id>". As
// genkit.DefineEmbedder, it panics when that name is already registered.
func (p *Plugin) DefineEmbedder(g *genkit.Genkit, id string, opts *ai.EmbedderOptions) ai.Embedder {
	e := p.newEmbedder(id, opts)
	genkit.RegisterAction(g, e)
	return e
}

// Model returns the gateway's model id from g, resolving it through the plugin when it is not
// registered yet; nil when g has no infergate plugin.
func Model(g *genkit.Genkit, id string) ai.Model {
	return genkit.LookupModel(g, api.NewName(provider, id))
}

// Embedder returns the gateway's embedding model id from g, resolving it through the plugin when
// it is not registered yet; nil when g has no infergate plugin.
func Embedder(g *genkit.Genkit, id string) ai.Embedder {
	return genkit.LookupEmbedder(g, api.NewName(provider, id))
}

// defaultSupports is what a gateway model is assumed to take: the gateway speaks one chat API for
// every provider, so text, images, tools and system messages all pass; whether a given model
// honours them is its provider's answer.
var defaultSupports = ai.ModelSupports{Multiturn: true, SystemRole: true, Media: true, Tools: true, ToolChoice: true,
	Constrained: ai.ConstrainedSupportNone}

func (p *Plugin) newModel(id string, opts *ai.ModelOptions) ai.Model {
	if opts == nil {
		supports := defaultSupports
		opts = &ai.ModelOptions{Label: label(id), Supports: &supports}
	}
	name := api.NewName(provider, id)
	return ai.NewModel(name, opts, func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		return p.generate(ctx, id, req, cb)
	})
}
