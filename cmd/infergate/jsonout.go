package main

import (
	"time"

	infergate "github.com/infergate/infergate-go"
)

// What the commands print with --json is in one casing, the gateway's snake_case, whatever the
// SDK's types marshal to; a value the gateway did not give is left out, never shown as 0 or "".
// The types below are that output.

// modelJSON is one model of models --json. Its blockchain id is model_id, the name the bids and
// the usage records give it (as the SDK's RatedBid and UsageRecord do), so that scripts join on it.
type modelJSON struct {
	ID           string              `json:"id"`
	BlockchainID string              `json:"model_id,omitempty"`
	ModelType    infergate.ModelType `json:"model_type,omitempty"`
	Tags         []string            `json:"tags,omitempty"`
	Created      int64               `json:"created,omitempty"` // Unix seconds, as the wire's
	OwnedBy      string              `json:"owned_by,omitempty"`
}

func modelOutput(m infergate.Model) modelJSON {
	return modelJSON{ID: m.ID, BlockchainID: m.BlockchainID, ModelType: m.Type, Tags: m.Tags, Created: m.Created, OwnedBy: m.OwnedBy}
}

// bidJSON is one bid of bids --json. A bid in the marketplace's shape has a score and no rating or
// session count; one in the contract's shape has those and no score: each prints only its own.
// Its price is the wire's, as RatedBid marshals it: a decimal string in MOR, the currency of every
// bid.
type bidJSON struct {
	BidID          string                 `json:"bid_id"`
	Provider       string                 `json:"provider"`
	ModelID        string                 `json:"model_id,omitempty"`
	PricePerSecond infergate.Decimal      `json:"price_per_second"`
	Rating         *float64               `json:"rating,omitempty"`
	Score          *float64               `json:"score,omitempty"`
	TotalSessions  *int64                 `json:"total_sessions,omitempty"`
	Availability   infergate.Availability `json:"availability,omitempty"`
	MinDuration    int64                  `json:"min_duration,omitempty"` // seconds
	MaxDuration    int64                  `json:"max_duration,omitempty"` // seconds
	CreatedAt      *time.Time             `json:"created_at,omitempty"`
}

// marketShape reports whether b came in the marketplace's shape, which ranks by a score and
// counts no sessions.
func marketShape(b infergate.RatedBid) bool { return b.Rating == 0 && b.Score != 0 }

func bidOutput(b infergate.RatedBid) bidJSON {
	out := bidJSON{BidID: b.ID, Provider: b.Provider, ModelID: b.ModelBlockchainID, PricePerSecond: b.PricePerSecond.Amount,
		Availability: b.Availability, MinDuration: int64(b.MinDuration / time.Second), MaxDuration: int64(b.MaxDuration / time.Second)}
	if marketShape(b) {
		out.Score = &b.Score
	} else {
		out.Rating, out.TotalSessions = &b.Rating, &b.TotalSessions
	}
	if !b.CreatedAt.IsZero() {
		created := b.CreatedAt.UTC()
		out.CreatedAt = &created
	}
	return out
}

// usageJSON is one record of usage --json; token counts the gateway did not record are left out.
type usageJSON struct {
	ID            string             `json:"id"`
	CreatedAt     time.Time          `json:"created_at"`
	ModelName     string             `json:"model_name,omitempty"`
	ModelID       string             `json:"model_id,omitempty"`
	Endpoint      string             `json:"endpoint,omitempty"`
	TokensInput   int                `json:"tokens_input,omitempty"`
	TokensOutput  int                `json:"tokens_output,omitempty"`
	TokensTotal   int                `json:"tokens_total,omitempty"`
	RequestID     string             `json:"request_id,omitempty"`
	APIKeyID      int                `json:"api_key_id,omitempty"`
	AmountPaid    infergate.Decimal  `json:"amount_paid"`
	AmountStaking infergate.Decimal  `json:"amount_staking"`
	AmountTotal   infergate.Decimal  `json:"amount_total"`
	Currency      infergate.Currency `json:"currency,omitempty"`
}

func usageOutput(r infergate.UsageRecord) usageJSON {
	return usageJSON{ID: r.ID, CreatedAt: r.CreatedAt, ModelName: r.ModelName, ModelID: r.ModelBlockchainID,
		Endpoint: r.Endpoint, TokensInput: r.InputTokens, TokensOutput: r.OutputTokens, TokensTotal: r.TotalTokens,
		RequestID: r.RequestID, APIKeyID: r.APIKeyID, AmountPaid: r.AmountPaid.Amount, AmountStaking: r.AmountStaking.Amount,
		AmountTotal: r.AmountTotal.Amount, Currency: r.AmountTotal.Currency}
}
