package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ModelsService lists the models the gateway serves. Get it as Client.Models.
type ModelsService struct {
	client *Client
	// deployedRoute is set once the contract's route answered 404 and the deployed gateway's route
	// answered instead, so that later calls go straight to the route that works.
	deployedRoute atomic.Bool
	cache         catalogCache
}

// DefaultCatalogTTL is how long Models.Get and Bids.Rated reuse the catalogue, as long as the gateway
// caches it itself.
const DefaultCatalogTTL = 5 * time.Minute

// WithCatalogTTL sets how long Models.Get and Bids.Rated reuse a downloaded model catalogue (default
// DefaultCatalogTTL); zero or less always downloads it. Models.List always downloads it.
func WithCatalogTTL(d time.Duration) Option { return func(c *config) { c.catalogTTL = d } }

// catalogCache keeps the last catalogue downloaded, for the API root it came from.
type catalogCache struct {
	mu      sync.Mutex
	root    string
	models  []Model
	fetched time.Time
}

func (cc *catalogCache) get(root string, ttl time.Duration) ([]Model, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if ttl <= 0 || cc.root != root || time.Since(cc.fetched) >= ttl {
		return nil, false
	}
	return cc.models, true
}

func (cc *catalogCache) put(root string, models []Model) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.root, cc.models, cc.fetched = root, models, time.Now()
}

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
}

// IsWebSearch reports whether the model is a web-search variant (its name ends in ":web").
func (m Model) IsWebSearch() bool { return hasWebSuffix(m.ID) }

// List returns the whole model catalogue. It asks the route the API contract names and, when that
// answers 404 as the deployed gateway does, the deployed gateway's route; the client then remembers
// the route that worked.
//
// GET /api/v1/chat/models (falling back to GET /api/v1/models)
func (s *ModelsService) List(ctx context.Context, opts ...Option) ([]Model, error) {
	c, err := s.client.with(opts)
	if err != nil {
		return nil, err
	}
	return c.listModels(ctx)
}

// listModels downloads the catalogue from the route that works.
func (c *Client) listModels(ctx context.Context) ([]Model, error) {
	s := c.Models
	if s.deployedRoute.Load() {
		return c.listModelsAt(ctx, modelsRouteDeployed)
	}
	models, err := c.listModelsAt(ctx, modelsRouteContract)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		return models, err
	}
	models, err = c.listModelsAt(ctx, modelsRouteDeployed)
	if err == nil {
		s.deployedRoute.Store(true)
	}
	return models, err
}

func (c *Client) listModelsAt(ctx context.Context, path string) ([]Model, error) {
	var out catalogList
	ar := apiRequest{method: http.MethodGet, path: path, contentType: "application/json"}
	if err := c.doJSON(ctx, ar, nil, &out, nil); err != nil {
		return nil, err
	}
	return out.items, nil
}

// catalog returns the catalogue for lookups, downloading it only when the cached one is older than
// the TTL. The cached list is never handed to callers, so it needs no copy.
func (c *Client) catalog(ctx context.Context) ([]Model, error) {
	root := c.cfg.baseURL.String()
	if models, ok := c.Models.cache.get(root, c.cfg.catalogTTL); ok {
		return models, nil
	}
	models, err := c.listModels(ctx)
	if err == nil {
		c.Models.cache.put(root, models)
	}
	return models, err
}

// Get finds a model in the catalogue by name (case-insensitive, as the gateway treats names) or by
// hex blockchain id. A model that is not listed gives an error matching ErrNotFound.
//
// GET /api/v1/chat/models (falling back to GET /api/v1/models)
func (s *ModelsService) Get(ctx context.Context, nameOrID string, opts ...Option) (Model, error) {
	if strings.TrimSpace(nameOrID) == "" {
		return Model{}, invalid("Model", "a model name or hex id is required")
	}
	c, err := s.client.with(opts)
	if err != nil {
		return Model{}, err
	}
	return c.findModel(ctx, nameOrID)
}

func (c *Client) findModel(ctx context.Context, nameOrID string) (Model, error) {
	models, err := c.catalog(ctx)
	if err != nil {
		return Model{}, err
	}
	for _, m := range models {
		if strings.EqualFold(m.ID, nameOrID) || (m.BlockchainID != "" && strings.EqualFold(m.BlockchainID, nameOrID)) {
			return m, nil
		}
	}
	return Model{}, errorf("infergate: model %q is not in the catalogue: %w", nameOrID, ErrNotFound)
}

// IsHexID reports whether id is a blockchain hex id ("0x" followed by hex digits) rather than a
// model name.
func IsHexID(id string) bool {
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

// listOf decodes a JSON list that servers send either bare ([...]) or wrapped in an object under
// field ({"data":[...]}). null and a missing field give an empty list.
type listOf[T any] struct {
	field string
	items []T
}

func (l *listOf[T]) UnmarshalJSON(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return json.Unmarshal(raw, &l.items)
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return err
	}
	if inner, ok := wrapper[l.field]; ok {
		return json.Unmarshal(inner, &l.items)
	}
	return nil
}
