package gatewaytest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// CatalogModel is an entry of the model catalogue, in the deployed gateway's shape.
//
// The deployed gateway sends none of the facts below; its first-party web app reads them when a
// server does. They are sent only when set, so a catalogue that sets none, DefaultModels
// included, is the gateway's.
type CatalogModel struct {
	ID           string   `json:"id"`           // the name, e.g. llama-3.3-70b
	BlockchainID string   `json:"blockchainID"` // 0x and 64 hex digits; HexID(ID) when empty
	Created      int64    `json:"created"`      // Unix seconds
	Tags         []string `json:"tags"`         // sent as [] when nil
	ModelType    string   `json:"modelType"`    // LLM, EMBEDDING, TTS, STT or UNKNOWN; LLM when empty

	ContextLength int      `json:"context_length,omitempty"` // the context window in tokens
	Capabilities  []string `json:"capabilities,omitempty"`   // e.g. tools, reasoning, vision
	// The prices, USD per million tokens, as decimal text (such as "0.70"), sent as JSON strings
	// as the ledger sends prices (the web app reads numbers; the SDK takes both).
	InputPricePerMillion  string `json:"input_price_per_million,omitempty"`  // per million input tokens
	OutputPricePerMillion string `json:"output_price_per_million,omitempty"` // per million output tokens
}

// HexID returns the deterministic blockchain id the fake gives a model or
// bid name: 0x and the hex SHA-256 of name.
func HexID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return "0x" + hex.EncodeToString(sum[:])
}

// DefaultModels returns the catalogue a server has without WithModels: a
// text model (DefaultModel, the default of chat completions), its :web
// variant, a vision model, and the defaults of the other routes: an embedding
// model (DefaultEmbeddingModel), a text-to-speech model (DefaultSpeechModel)
// and a speech-to-text model (DefaultTranscriptionModel).
func DefaultModels() []CatalogModel {
	m := func(name, typ string, tags ...string) CatalogModel {
		return CatalogModel{ID: name, BlockchainID: HexID(name), Created: 1757993282,
			Tags: append([]string{typ, name}, tags...), ModelType: typ}
	}
	return []CatalogModel{
		m(DefaultModel, "LLM"),
		m(DefaultModel+":web", "LLM", "web"),
		m("qwen2.5-vl-72b", "LLM", "vision"),
		m(DefaultEmbeddingModel, "EMBEDDING"),
		m(DefaultSpeechModel, "TTS"),
		m(DefaultTranscriptionModel, "STT", "transcribe"),
	}
}

// WithModels replaces the catalogue, which is what the chat and embeddings
// routes resolve a request's model against, as the deployed gateway does: a
// model's hex id, its name (without case) or its name's slug is that model; a
// model of the wrong type is a 400 model_type_mismatch; a name near some
// catalogue names is a 400 model_not_found_near_miss that names them; any
// other name, or none, is served by the route's default, the catalogue's
// first model of the route's type (DefaultModel or DefaultEmbeddingModel when
// it has none). A model without BlockchainID gets HexID(ID), one without
// ModelType is an LLM. WithAnyModel turns the resolution off.
func WithModels(models ...CatalogModel) ServerOption {
	return func(c *config) {
		c.models = make([]CatalogModel, len(models))
		for i, m := range models {
			if m.BlockchainID == "" {
				m.BlockchainID = HexID(m.ID)
			}
			if m.ModelType == "" {
				m.ModelType = "LLM"
			}
			if m.Tags == nil {
				m.Tags = []string{}
			}
			c.models[i] = m
		}
	}
}

// WithAnyModel makes the chat and embeddings routes serve every model name
// as that model, unlike the gateway: no near-miss 400, no type check, and no
// unknown name routed to the default model; a reply reports the name the
// request gave. The model-session route takes any name too. It is for tests
// about something other than model names; tests of code that names models
// should use the catalogue's names (DefaultModels, or their own with
// WithModels).
func WithAnyModel() ServerOption { return func(c *config) { c.anyModel = true } }

// WithChatModelsRoute also serves the catalogue at the contract's
// GET /api/v1/chat/models, which the deployed gateway answers with 404.
func WithChatModelsRoute() ServerOption { return func(c *config) { c.chatModels = true } }

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": s.cfg.models})
}

// Bid is a provider's offer for a model. It holds the fields of both the
// deployed shape and the contract's shape of GET /models/ratedbids.
type Bid struct {
	ID                string  // 0x hex bid id
	ModelID           string  // the model's 0x hex blockchain id
	Provider          string  // the provider's 0x address
	PricePerSecondWei string  // integer string in wei; 10^18 wei is one token
	Nonce             string  // deployed shape only
	CreatedAt         int64   // Unix seconds; deployed shape only
	Score             float64 // deployed shape, 0 to 1
	Rating            float64 // contract shape, 0 to 5
	TotalSessions     int     // contract shape
	Availability      string  // contract shape: available, busy or offline
	MinDuration       int     // contract shape, seconds
	MaxDuration       int     // contract shape, seconds
}

// WithBids replaces the default bids (two per catalogue model). Bids are
// answered in the order given, filtered by ModelID.
func WithBids(bids ...Bid) ServerOption {
	return func(c *config) { c.bids = append([]Bid{}, bids...) }
}

// WithContractBids makes GET /models/ratedbids answer in the contract's
// shape (bid_id, provider, price_per_second in tokens, rating, ...) instead of
// the deployed pass-through shape.
func WithContractBids() ServerOption { return func(c *config) { c.contractBids = true } }

func defaultBids(models []CatalogModel) []Bid {
	var bids []Bid
	for _, m := range models {
		bids = append(bids,
			Bid{ID: HexID(m.ID + "/bid/1"), ModelID: m.BlockchainID, Provider: address(m.ID + "/provider/1"),
				PricePerSecondWei: "1000000000000", Nonce: "1", CreatedAt: 1757993282, Score: 0.73,
				Rating: 3.65, TotalSessions: 120, Availability: "available", MinDuration: 60, MaxDuration: 86400},
			Bid{ID: HexID(m.ID + "/bid/2"), ModelID: m.BlockchainID, Provider: address(m.ID + "/provider/2"),
				PricePerSecondWei: "2500000000000", Nonce: "2", CreatedAt: 1757993300, Score: 0.41,
				Rating: 2.05, TotalSessions: 15, Availability: "busy", MinDuration: 60, MaxDuration: 3600},
		)
	}
	return bids
}

// address is a deterministic 20-byte 0x address.
func address(seed string) string { return HexID(seed)[:42] }

func (s *Server) handleRatedBids(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("model_id")
	if !r.URL.Query().Has("model_id") {
		validation(w, "missing", []any{"query", "model_id"}, "Field required", nil)
		return
	}
	if !hexID.MatchString(id) {
		detail(w, http.StatusBadRequest, "Invalid model_id format. Must be a hex blockchain ID (0x followed by 64 hex characters)")
		return
	}
	items := []any{}
	for _, b := range s.cfg.bids {
		if !strings.EqualFold(b.ModelID, id) {
			continue
		}
		if s.cfg.contractBids {
			items = append(items, map[string]any{
				"bid_id": b.ID, "provider": b.Provider, "model_id": b.ModelID,
				"price_per_second": weiToTokens(b.PricePerSecondWei), "rating": b.Rating,
				"total_sessions": b.TotalSessions, "availability": b.Availability,
				"min_duration": b.MinDuration, "max_duration": b.MaxDuration,
			})
			continue
		}
		items = append(items, map[string]any{
			"ID": b.ID,
			"Bid": map[string]any{
				"Id": b.ID, "Provider": b.Provider, "ModelAgentId": b.ModelID,
				"PricePerSecond": b.PricePerSecondWei, "Nonce": b.Nonce,
				"CreatedAt": itoa64(b.CreatedAt), "DeletedAt": "0",
			},
			"Score": b.Score,
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"bids": items})
}

// weiToTokens renders an integer wei string as an exact decimal token
// amount; string arithmetic keeps it exact where float64 would not.
func weiToTokens(wei string) string {
	neg := strings.HasPrefix(wei, "-")
	digits := strings.TrimLeft(strings.TrimPrefix(wei, "-"), "0")
	if digits == "" {
		return "0"
	}
	if len(digits) <= 18 {
		digits = strings.Repeat("0", 19-len(digits)) + digits
	}
	whole, frac := digits[:len(digits)-18], strings.TrimRight(digits[len(digits)-18:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
