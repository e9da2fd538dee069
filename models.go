package infergate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/infergate/infergate-go/internal/jsonscan"
	"github.com/infergate/infergate-go/internal/modelfacts"
	"github.com/infergate/infergate-go/internal/modelname"
)

// ModelsService lists the models the gateway serves. Get it as Client.Models.
type ModelsService struct{ client *Client }

// The catalogue's routes: the one the API contract names, and the one the deployed gateway serves.
const (
	modelsRouteContract = "/chat/models"
	modelsRouteDeployed = "/models"
)

// ModelType says what kind of work a model does.
type ModelType string

// The model types the gateway reports. Other values are kept as sent.
const (
	ModelTypeLLM       ModelType = "LLM"       // chat and text generation
	ModelTypeEmbedding ModelType = "EMBEDDING" // embeddings
	ModelTypeTTS       ModelType = "TTS"       // text to speech
	ModelTypeSTT       ModelType = "STT"       // speech to text (transcription)
	ModelTypeUnknown   ModelType = "UNKNOWN"   // the gateway does not know
)

// Model is an entry of the model catalogue.
type Model struct {
	// ID is the model's name as requests use it, e.g. "llama-3.3-70b" or "glm-5.1:web".
	ID string `json:"id"`
	// BlockchainID is the model's hex id on the marketplace ("0x" and 64 hex digits); rated bids are
	// looked up by it. Empty when the server lists plain OpenAI-style entries.
	BlockchainID string `json:"blockchainID,omitempty"`
	// Created is when the model was registered, in Unix seconds (as ChatCompletion.Created is);
	// time.Unix(m.Created, 0) turns it into a time. Zero when not given.
	Created int64 `json:"created,omitempty"`
	// Tags are the gateway's labels for the model.
	Tags []string `json:"tags,omitempty"`
	// Type is the kind of model; empty when the server does not say.
	Type ModelType `json:"modelType,omitempty"`
	// OwnedBy is the owner named by OpenAI-style listings; the gateway itself leaves it empty.
	OwnedBy string `json:"owned_by,omitempty"`
	// ContextLength is the model's context window in tokens, prompt and answer together; 0 when
	// unknown.
	ContextLength int `json:"context_length,omitempty"`
	// Capabilities are what the model can do besides plain chat; Can asks about one.
	Capabilities []Capability `json:"capabilities,omitempty"`
	// Prices are what the model's tokens cost; nil when unknown.
	Prices *ModelPrices `json:"prices,omitempty"`
	// TEE reports whether the model runs in a trusted execution environment (its "tee" tag).
	TEE bool `json:"tee,omitempty"`
	// Sources says where ContextLength, Capabilities and Prices came from.
	Sources FactSources `json:"sources,omitzero"`
}

// FactSources says where each of a model's facts came from: FactsFromServer (the models route
// sent it), FactsFromOption (WithModelFacts), or the SDK's built-in table, named by its date, the
// document and the commit it was read at, e.g. "table 2026-07-23: api-gateway-docs
// documentation/models.mdx@adc92e8 (2026-06-10)". Empty when the fact is unknown.
type FactSources struct {
	ContextLength string `json:"context_length,omitempty"` // where Model.ContextLength came from
	Capabilities  string `json:"capabilities,omitempty"`   // where Model.Capabilities came from
	Prices        string `json:"prices,omitempty"`         // where Model.Prices came from
}

// The sources of a model's facts besides the built-in table; see FactSources.
const (
	FactsFromServer = "server"
	FactsFromOption = "WithModelFacts"
)

// Capability is something a model can do besides plain chat.
type Capability string

// The capabilities the gateway's model lists name.
const (
	CapabilityTools         Capability = "tools"         // function calling
	CapabilityReasoning     Capability = "reasoning"     // thinks before it answers
	CapabilityVision        Capability = "vision"        // reads images
	CapabilityWebSearch     Capability = "web_search"    // searches the web (the ":web" variants)
	CapabilityEmbeddings    Capability = "embeddings"    // turns text into vectors
	CapabilitySpeech        Capability = "speech"        // turns text into speech
	CapabilityTranscription Capability = "transcription" // turns speech into text
)

// Can reports whether the model has capability c.
func (m Model) Can(c Capability) bool { return slices.Contains(m.Capabilities, c) }

// ModelPrices are what a model's tokens cost, per million tokens. The gateway bills in USD.
type ModelPrices struct {
	Input  Money `json:"input"`  // per million input (prompt) tokens
	Output Money `json:"output"` // per million output (completion) tokens
}

// IsWebSearch reports whether the model is a web-search variant (its name ends in ":web").
func (m Model) IsWebSearch() bool { return hasWebSuffix(m.ID) }

// List returns the whole model catalogue. It asks the route the API contract names and, when that
// answers 404 as the deployed gateway does, the deployed gateway's route; the client then remembers
// the route that worked.
//
// GET /api/v1/chat/models (falling back to GET /api/v1/models)
func (s *ModelsService) List(ctx context.Context, opts ...Option) ([]Model, error) {
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	models, err := s.list(ctx, c)
	for i := range models {
		c.completeFacts(&models[i]) // a fresh list, which no cache holds
	}
	return models, err
}

// list downloads the catalogue from the route that works.
func (s *ModelsService) list(ctx context.Context, c *config) ([]Model, error) {
	root := c.baseURL.String()
	if s.client.catalog.servesDeployedRoute(root) {
		return listModelsAt(ctx, c, modelsRouteDeployed)
	}
	models, err := listModelsAt(ctx, c, modelsRouteContract)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		return models, err
	}
	models, err = listModelsAt(ctx, c, modelsRouteDeployed)
	if err == nil {
		s.client.catalog.setDeployedRoute(root)
	}
	return models, err
}

func listModelsAt(ctx context.Context, c *config, path string) ([]Model, error) {
	var out catalogList
	r := route{op: "models.list", method: http.MethodGet, path: path, contentType: "application/json"}
	if err := do(ctx, c, r, &out); err != nil {
		return nil, err
	}
	return out.items, nil
}

// catalog returns the catalogue for lookups, downloading it only when the cached one is older than
// the TTL. The cached list holds what the server sent, and is never handed to callers: what they
// get is copied, with the facts the call's configuration knows (withFacts).
func (s *ModelsService) catalog(ctx context.Context, c *config) ([]Model, error) {
	key := c.catalogKey()
	if models, ok := s.client.catalog.get(key, c.catalogTTL); ok {
		return models, nil
	}
	models, err := s.list(ctx, c)
	if err == nil {
		s.client.catalog.put(key, models)
	}
	return models, err
}

// Get finds a model in the catalogue by name (case-insensitive, as the gateway treats names) or by
// hex blockchain id. A model that is not listed gives an error matching ErrNotFound.
//
// GET /api/v1/chat/models (falling back to GET /api/v1/models)
func (s *ModelsService) Get(ctx context.Context, nameOrID string, opts ...Option) (*Model, error) {
	if strings.TrimSpace(nameOrID) == "" {
		return nil, invalid("Model", "a model name or hex id is required")
	}
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	return s.find(ctx, c, nameOrID)
}

// find looks a model up in the cached catalogue and returns a copy that shares no memory with it.
func (s *ModelsService) find(ctx context.Context, c *config, nameOrID string) (*Model, error) {
	models, err := s.catalog(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, m := range models {
		if strings.EqualFold(m.ID, nameOrID) || (m.BlockchainID != "" && strings.EqualFold(m.BlockchainID, nameOrID)) {
			m = c.withFacts(m)
			return &m, nil
		}
	}
	return nil, errorf("infergate: model %q is not in the catalogue: %w", nameOrID, ErrNotFound)
}

// Resolve finds the model the gateway would serve a request naming name with, by the gateway's own
// rules: a hex blockchain id exactly (case and all), a catalogue name without regard to case, the
// slug of a catalogue name when no other model has that slug ("Llama 3.3 70B" and
// "llama_3.3_70b" are llama-3.3-70b), or a name whose slug is one of those. A name it does not
// find gives a *ModelNotFoundError matching ErrNotFound, naming the catalogue models the gateway
// finds close to it: the gateway refuses such a near miss, but serves a name close to none with
// its default model, silently, which Resolve lets a caller catch before sending. It reads the
// client's cached catalogue (WithCatalogTTL).
//
// GET /api/v1/chat/models (falling back to GET /api/v1/models)
func (s *ModelsService) Resolve(ctx context.Context, name string, opts ...Option) (Model, error) {
	if strings.TrimSpace(name) == "" {
		return Model{}, invalid("Model", "a model name or hex id is required")
	}
	c, err := s.client.configure(opts)
	if err != nil {
		return Model{}, err
	}
	models, err := s.catalog(ctx, c)
	if err != nil {
		return Model{}, err
	}
	names, hexIDs := make([]string, len(models)), make([]string, len(models))
	for i, m := range models {
		names[i], hexIDs[i] = m.ID, m.BlockchainID
	}
	index := modelname.NewIndex(names, hexIDs)
	if i, ok := index.Lookup(name); ok {
		return c.withFacts(models[i]), nil
	}
	return Model{}, &ModelNotFoundError{Name: name, Suggestions: index.Suggestions(name)}
}

// cachedCatalogue is the catalogue the client holds for c, without downloading it; nil when it
// holds none.
func (s *ModelsService) cachedCatalogue(c *config) []Model {
	models, _ := s.client.catalog.get(c.catalogKey(), c.catalogTTL)
	return models
}

// pricesIn returns model's prices as Models.Get finds them in catalogue (the route's, completed
// with WithModelFacts and the built-in table), or, for a model catalogue does not list, from
// WithModelFacts and the table by its name; nil when unknown.
func (c *config) pricesIn(catalogue []Model, model string) *ModelPrices {
	if model == "" {
		return nil // the gateway's choice, which it does not say before answering
	}
	m := Model{ID: model}
	for i := range catalogue {
		if strings.EqualFold(catalogue[i].ID, model) || (catalogue[i].BlockchainID != "" && strings.EqualFold(catalogue[i].BlockchainID, model)) {
			m = catalogue[i]
			break
		}
	}
	return c.withFacts(m).Prices
}

// userFacts returns the WithModelFacts entry for a catalogue name: its own, else its base model's.
func (c *config) userFacts(name string) (Model, bool) {
	for _, key := range []string{name, modelfacts.Base(name)} {
		for _, m := range c.modelFacts {
			if strings.EqualFold(m.ID, key) {
				return m, true
			}
		}
	}
	return Model{}, false
}

// routeFacts adds to m the facts the models route sent for it.
func routeFacts(m Model, sent jsonscan.CatalogModel) Model {
	// A source already given is kept: a model the SDK encoded names its own.
	if n := cmp.Or(sent.ContextLength, sent.MaxModelLen, sent.ContextWindow); n > 0 && n <= math.MaxInt {
		m.ContextLength, m.Sources.ContextLength = int(n), cmp.Or(m.Sources.ContextLength, FactsFromServer)
	}
	if sent.Capabilities != nil {
		m.Capabilities = make([]Capability, len(sent.Capabilities))
		for i, c := range sent.Capabilities {
			m.Capabilities[i] = Capability(c)
		}
		m.Sources.Capabilities = cmp.Or(m.Sources.Capabilities, FactsFromServer)
	}
	// Both prices or neither: one alone leaves the pair to the other sources.
	if sent.InputPrice != "" && sent.OutputPrice != "" {
		in, errIn := ParseDecimal(sent.InputPrice)
		out, errOut := ParseDecimal(sent.OutputPrice)
		if errIn == nil && errOut == nil {
			m.Prices = &ModelPrices{Input: Money{in, CurrencyUSD}, Output: Money{out, CurrencyUSD}}
		}
	}
	if m.Prices != nil {
		m.Sources.Prices = cmp.Or(m.Sources.Prices, FactsFromServer)
	}
	m.TEE = m.TEE || sent.TEE
	return m
}

// withFacts returns a copy of a catalogue model that shares no memory with the cache, completed
// with the facts the call's configuration knows (completeFacts).
func (c *config) withFacts(m Model) Model {
	m.Tags, m.Capabilities = slices.Clone(m.Tags), slices.Clone(m.Capabilities)
	if m.Prices != nil {
		prices := *m.Prices
		m.Prices = &prices
	}
	c.completeFacts(&m)
	return m
}

// completeFacts completes a model whose memory is its own with what the route did not send: each
// fact from the caller's WithModelFacts, else from the built-in table; the capabilities the model's
// type, tags and name imply; and TEE from its tags.
func (c *config) completeFacts(m *Model) {
	user, byUser := c.userFacts(m.ID)
	table, inTable := modelfacts.Lookup(m.ID)
	switch {
	case m.Sources.ContextLength != "":
	case byUser && user.ContextLength > 0:
		m.ContextLength, m.Sources.ContextLength = user.ContextLength, FactsFromOption
	case inTable && table.ContextLength > 0:
		m.ContextLength, m.Sources.ContextLength = table.ContextLength, table.ContextSource
	}
	switch {
	case m.Sources.Capabilities != "":
	case byUser && user.Capabilities != nil:
		m.Capabilities, m.Sources.Capabilities = slices.Clone(user.Capabilities), FactsFromOption
	case inTable && table.CapsSource != "":
		for _, c := range table.Capabilities {
			m.Capabilities = append(m.Capabilities, Capability(c))
		}
		m.Sources.Capabilities = table.CapsSource
	}
	var implied [4]Capability
	for _, can := range impliedCapabilities(m, implied[:0]) {
		if !m.Can(can) {
			m.Capabilities = append(m.Capabilities, can)
		}
		m.Sources.Capabilities = cmp.Or(m.Sources.Capabilities, FactsFromServer)
	}
	switch {
	case m.Sources.Prices != "":
	case byUser && user.Prices != nil:
		prices := *user.Prices
		m.Prices, m.Sources.Prices = &prices, FactsFromOption
	default:
		if i, ok := modelfacts.LookupPrice(m.ID); ok && builtinPrices()[i] != nil {
			prices := *builtinPrices()[i]
			m.Prices, m.Sources.Prices = &prices, modelfacts.PriceFile
		}
	}
	m.TEE = m.TEE || slices.ContainsFunc(m.Tags, func(t string) bool { return strings.EqualFold(t, "tee") })
}

// impliedCapabilities appends to out what a model's type, its type tags and a ":web" name say it
// can do.
func impliedCapabilities(m *Model, out []Capability) []Capability {
	for _, kind := range []struct {
		name ModelType
		can  Capability
	}{{ModelTypeEmbedding, CapabilityEmbeddings}, {ModelTypeTTS, CapabilitySpeech}, {ModelTypeSTT, CapabilityTranscription}} {
		isKind := func(k string) bool { return strings.EqualFold(k, string(kind.name)) }
		if isKind(string(m.Type)) || slices.ContainsFunc(m.Tags, isKind) {
			out = append(out, kind.can)
		}
	}
	if m.IsWebSearch() {
		out = append(out, CapabilityWebSearch)
	}
	return out
}

// builtinPrices are the built-in price file's prices, parsed once; nil for an entry that is no
// decimal, which a test keeps from happening.
var builtinPrices = sync.OnceValue(func() []*ModelPrices {
	out := make([]*ModelPrices, len(modelfacts.Prices))
	for i, p := range modelfacts.Prices {
		in, errIn := ParseDecimal(p.Input)
		price, errOut := ParseDecimal(p.Output)
		if errIn == nil && errOut == nil {
			out[i] = &ModelPrices{Input: Money{in, CurrencyUSD}, Output: Money{price, CurrencyUSD}}
		}
	}
	return out
})

// IsBlockchainID reports whether id is a blockchain hex id ("0x" followed by hex digits) rather than a
// model name.
func IsBlockchainID(id string) bool {
	hex, ok := strings.CutPrefix(id, "0x")
	if !ok {
		hex, ok = strings.CutPrefix(id, "0X")
	}
	if !ok || hex == "" {
		return false
	}
	for _, r := range hex {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// WebSearchVariant returns the name of a model's web-search variant, which can call a web-search
// tool for current events: "glm-5.1" gives "glm-5.1:web". A name that already ends in ":web" is
// returned as it is, and so is an empty one.
func WebSearchVariant(name string) string {
	if name == "" || hasWebSuffix(name) {
		return name
	}
	return name + ":web"
}

func hasWebSuffix(name string) bool {
	const suffix = ":web"
	return len(name) >= len(suffix) && strings.EqualFold(name[len(name)-len(suffix):], suffix)
}

// catalogList is the catalogue's answer, {"object":"list","data":[...]} or a bare list. The usual
// shape goes through jsonscan.DecodeCatalog in one pass, with a handful of allocations for a
// thousand models; anything else through encoding/json.
type catalogList struct{ items []Model }

// decodeFast reports no envelope: the scanner declines every top-level key but "object" and
// "data".
func (l *catalogList) decodeFast(raw []byte) (decoded, envelope bool) {
	models, ok := decodeCatalog(raw)
	l.items = models
	return ok, false
}

// UnmarshalJSON decodes what decodeFast declined, with encoding/json. A fact in an unexpected
// shape (a context length that is not a whole number, a price that is no decimal) is left unknown
// rather than failing the whole list.
func (l *catalogList) UnmarshalJSON(raw []byte) error {
	out := listOf[wireModel]{field: "data"}
	err := json.Unmarshal(raw, &out)
	l.items = make([]Model, len(out.items))
	for i, w := range out.items {
		l.items[i] = w.model()
	}
	return err
}

// wireModel is a catalogue entry with the spellings of facts servers send beside Model's own.
type wireModel struct {
	Model
	ContextLength json.RawMessage `json:"context_length"`
	MaxModelLen   json.RawMessage `json:"max_model_len"`
	ContextWindow json.RawMessage `json:"context_window"`
	InputPrice    json.RawMessage `json:"input_price_per_million"`
	OutputPrice   json.RawMessage `json:"output_price_per_million"`
	Capabilities  json.RawMessage `json:"capabilities"`
	TEE           json.RawMessage `json:"tee"`
}

func (w wireModel) model() Model {
	m := w.Model
	var sizes [3]int64
	for i, raw := range []json.RawMessage{w.ContextLength, w.MaxModelLen, w.ContextWindow} {
		_ = json.Unmarshal(raw, &sizes[i]) // anything but an integer stays 0: unknown
	}
	var in, out string
	for _, p := range []struct {
		raw  json.RawMessage
		text *string
	}{{w.InputPrice, &in}, {w.OutputPrice, &out}} {
		var n json.Number
		if json.Unmarshal(p.raw, p.text) != nil && json.Unmarshal(p.raw, &n) == nil {
			*p.text = string(n)
		}
	}
	var caps []string
	_ = json.Unmarshal(w.Capabilities, &caps)
	var tee bool
	_ = json.Unmarshal(w.TEE, &tee)
	return routeFacts(m, jsonscan.CatalogModel{ContextLength: sizes[0], MaxModelLen: sizes[1], ContextWindow: sizes[2],
		InputPrice: in, OutputPrice: out, Capabilities: caps, TEE: tee})
}

// decodeCatalog returns the models of a catalogue in the gateway's usual shape; ok is false when
// the scanner declines. The models' strings share one copy of raw, never raw itself.
func decodeCatalog(raw []byte) ([]Model, bool) {
	models := make([]Model, 0, len(raw)/160) // the gateway's entries are about 160 bytes
	ok := jsonscan.DecodeCatalog(raw, func(m jsonscan.CatalogModel) {
		models = append(models, routeFacts(Model{ID: m.ID, BlockchainID: m.BlockchainID, Created: m.Created,
			Tags: m.Tags, Type: ModelType(m.Type), OwnedBy: m.OwnedBy}, m))
	})
	return models, ok
}
