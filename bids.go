package infergate

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// BidsService reads providers' rated bids for a model. Get it as Client.Bids.
type BidsService struct{ client *Client }

// Availability says whether a provider can take a session now.
type Availability string

// The availabilities the API defines. Other values are kept as sent.
const (
	AvailabilityAvailable Availability = "available"
	AvailabilityBusy      Availability = "busy"
	AvailabilityOffline   Availability = "offline"
)

// RatedBid is a provider's offer to serve a model, with the gateway's rating of the provider. Its
// ID picks that provider when creating a session with SessionsService.CreateFromBid.
//
// The gateway sends bids in one of two shapes: the API contract's, with Rating, TotalSessions,
// Availability and durations; or the marketplace's own, passed through, with Score and CreatedAt
// instead. Fields the shape at hand does not carry are zero.
type RatedBid struct {
	ID                string // the bid's id
	Provider          string // the provider's blockchain address
	ModelBlockchainID string // the model's hex blockchain id, not its name (Model.ID); see IsBlockchainID
	// PricePerSecond is the price of a second of session, exact, in the network's token
	// (CurrencyMOR; the deployed gateway sends wei, converted for you).
	PricePerSecond Money
	Rating         float64 // the provider's rating, 0 to 5 (contract shape)
	// Score is the marketplace's own ranking score (pass-through shape). Its scale is not Rating's,
	// so the two must not be compared.
	Score         float64
	TotalSessions int64        // sessions the provider completed
	Availability  Availability // empty when the gateway does not report it
	// MinDuration and MaxDuration bound a session's length; a negative count of seconds reads as 0
	// and one too long for a Duration as the longest Duration.
	MinDuration time.Duration
	MaxDuration time.Duration // the longest session the provider accepts; zero when not reported
	CreatedAt   time.Time     // when the bid was placed; zero when not reported
}

// Cost returns the price of a session of duration d, in the price's currency (MOR): PricePerSecond
// times d's whole seconds, exactly. A negative d costs nothing.
func (b RatedBid) Cost(d time.Duration) Money {
	return b.PricePerSecond.MulInt(int64(max(d, 0) / time.Second))
}

// Lasts returns how long budget pays for a session on this bid: the whole seconds that budget ÷
// PricePerSecond covers. budget is a stake in the price's currency, MOR, such as the tokens a wallet
// puts up for a session; the account's balance is in USD, and as the API gives no exchange rate, a
// budget in another currency than the price's is an error matching ErrCurrencyMismatch that names
// both.
//
// A free bid, or a budget beyond the longest time.Duration, gives the longest time.Duration; a
// budget of zero or less gives 0.
func (b RatedBid) Lasts(budget Money) (time.Duration, error) {
	if budget.Currency != b.PricePerSecond.Currency {
		return 0, fmt.Errorf("%w: the budget is in %s but the bid's price is in %s: %s", ErrCurrencyMismatch,
			currencyName(budget.Currency), currencyName(b.PricePerSecond.Currency), noExchangeRate)
	}
	if budget.Sign() <= 0 {
		return 0, nil
	}
	if b.PricePerSecond.Sign() <= 0 {
		return math.MaxInt64, nil
	}
	ratio := new(big.Rat).Quo(budget.Amount.Rat(), b.PricePerSecond.Amount.Rat())
	whole := new(big.Int).Quo(ratio.Num(), ratio.Denom()) // both positive: this is the floor
	if !whole.IsInt64() || whole.Int64() > math.MaxInt64/int64(time.Second) {
		return math.MaxInt64, nil
	}
	return time.Duration(whole.Int64()) * time.Second, nil
}

// Rated returns the rated bids for a model, in the server's order, which is not guaranteed: the
// contract promises best rating first, then lowest price, but the deployed gateway passes the
// marketplace's bids through unsorted. Rank them with RankBids, or pick one with BestBid or
// CheapestBid. model is the model's hex blockchain id, or its name, which is first looked up in the model
// catalogue (an unknown name gives an error matching ErrNotFound, and no bid request is made).
//
// GET /api/v1/models/ratedbids
func (s *BidsService) Rated(ctx context.Context, model string, opts ...Option) ([]RatedBid, error) {
	if strings.TrimSpace(model) == "" {
		return nil, invalid("Model", "a model name or hex id is required")
	}
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	modelID, err := s.resolveModel(ctx, c, model)
	if err != nil {
		return nil, err
	}
	out := listOf[RatedBid]{field: "bids"}
	r := route{op: "bids.rated", method: http.MethodGet, path: "/models/ratedbids", query: url.Values{"model_id": {modelID}}}
	if err := do(ctx, c, r, &out); err != nil {
		return nil, err
	}
	return out.items, nil
}

// resolveModel turns a model name into the hex id the ratedbids route insists on.
func (s *BidsService) resolveModel(ctx context.Context, c *config, model string) (string, error) {
	if IsBlockchainID(model) {
		return model, nil
	}
	m, err := s.client.Models.find(ctx, c, model)
	if err != nil {
		return "", err
	}
	if m.BlockchainID == "" {
		return "", errorf("infergate: model %q has no blockchain id in the catalogue: %w", model, ErrNotFound)
	}
	return m.BlockchainID, nil
}

// wireBid holds both shapes of a bid; Bid is set only in the marketplace's pass-through shape.
type wireBid struct {
	BidID          string       `json:"bid_id,omitempty"`
	Provider       string       `json:"provider,omitempty"`
	ModelID        string       `json:"model_id,omitempty"`
	PricePerSecond Decimal      `json:"price_per_second"`
	Rating         jsonNumber   `json:"rating,omitempty"`
	Score          jsonNumber   `json:"score,omitempty"`
	TotalSessions  jsonNumber   `json:"total_sessions,omitempty"`
	Availability   Availability `json:"availability,omitempty"`
	MinDuration    jsonNumber   `json:"min_duration,omitempty"`
	MaxDuration    jsonNumber   `json:"max_duration,omitempty"`
	CreatedAt      jsonNumber   `json:"created_at,omitempty"`

	Bid *marketBid `json:"Bid,omitempty"`
}

// marketBid is the bid as the marketplace contract stores it. Amounts are in wei and big integers
// are strings.
type marketBid struct {
	ID             string     `json:"Id"`
	Provider       string     `json:"Provider"`
	ModelAgentID   string     `json:"ModelAgentId"`
	PricePerSecond jsonNumber `json:"PricePerSecond"`
	CreatedAt      jsonNumber `json:"CreatedAt"`
}

// UnmarshalJSON reads either shape of a bid.
func (b *RatedBid) UnmarshalJSON(data []byte) error {
	var w wireBid
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.Bid != nil {
		return b.fromMarket(w.Bid, w.Score)
	}
	*b = RatedBid{ID: w.BidID, Provider: w.Provider, ModelBlockchainID: w.ModelID,
		PricePerSecond: Money{Amount: w.PricePerSecond, Currency: CurrencyMOR}, Availability: w.Availability}
	return firstError(
		w.Rating.float(&b.Rating), w.Score.float(&b.Score), w.TotalSessions.int(&b.TotalSessions),
		w.MinDuration.seconds(&b.MinDuration), w.MaxDuration.seconds(&b.MaxDuration),
		w.CreatedAt.unixTime(&b.CreatedAt))
}

func (b *RatedBid) fromMarket(m *marketBid, score jsonNumber) error {
	*b = RatedBid{ID: m.ID, Provider: m.Provider, ModelBlockchainID: m.ModelAgentID, PricePerSecond: Money{Currency: CurrencyMOR}}
	if m.PricePerSecond != "" {
		price, err := FromWei(string(m.PricePerSecond))
		if err != nil {
			return errorf("infergate: bid %s: PricePerSecond: %w", m.ID, err)
		}
		b.PricePerSecond.Amount = price
	}
	return firstError(score.float(&b.Score), m.CreatedAt.unixTime(&b.CreatedAt))
}

// MarshalJSON writes the bid in the API contract's shape, plus score and created_at (Unix seconds)
// when set, so that a bid saved as JSON reads back the same. The shape's price_per_second is in
// MOR: a price in another currency is refused with a *ValidationError.
func (b RatedBid) MarshalJSON() ([]byte, error) {
	price, err := wireAmount("PricePerSecond", b.PricePerSecond, CurrencyMOR)
	if err != nil {
		return nil, err
	}
	w := wireBid{BidID: b.ID, Provider: b.Provider, ModelID: b.ModelBlockchainID, PricePerSecond: price,
		Rating:        jsonNumber(strconv.FormatFloat(b.Rating, 'g', -1, 64)),
		TotalSessions: jsonNumber(strconv.FormatInt(b.TotalSessions, 10)),
		Availability:  b.Availability,
		MinDuration:   jsonNumber(strconv.FormatInt(int64(b.MinDuration/time.Second), 10)),
		MaxDuration:   jsonNumber(strconv.FormatInt(int64(b.MaxDuration/time.Second), 10)),
	}
	if b.Score != 0 {
		w.Score = jsonNumber(strconv.FormatFloat(b.Score, 'g', -1, 64))
	}
	if !b.CreatedAt.IsZero() {
		w.CreatedAt = jsonNumber(strconv.FormatInt(b.CreatedAt.Unix(), 10))
	}
	return json.Marshal(w)
}

// jsonNumber is a number the server may send as a JSON number or as a string (big integers are
// strings); it holds the text. Empty means absent or null.
type jsonNumber string

func (n *jsonNumber) UnmarshalJSON(b []byte) error {
	text, _, err := numberText(b)
	*n = jsonNumber(text)
	return err
}

func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func (n jsonNumber) float(dst *float64) (err error) {
	if n != "" {
		*dst, err = strconv.ParseFloat(string(n), 64)
	}
	return err
}

func (n jsonNumber) int(dst *int64) (err error) {
	if n != "" {
		*dst, err = strconv.ParseInt(string(n), 10, 64)
	}
	return err
}

// seconds reads a whole number of seconds, clamped to what a Duration holds: a negative count is 0
// and one beyond about 292 years is the longest Duration, instead of wrapping round.
func (n jsonNumber) seconds(dst *time.Duration) error {
	var s int64
	err := n.int(&s)
	switch {
	case s < 0:
		*dst = 0
	case s > int64(math.MaxInt64/time.Second):
		*dst = math.MaxInt64
	default:
		*dst = time.Duration(s) * time.Second
	}
	return err
}

func (n jsonNumber) unixTime(dst *time.Time) error {
	var s int64
	if err := n.int(&s); err != nil || s == 0 {
		return err
	}
	*dst = time.Unix(s, 0).UTC()
	return nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// CompareBids ranks two bids the same way whichever shape the gateway sent them in. It returns a
// negative number when a is the better bid, a positive one when b is, and 0 when neither is: use it
// with slices.SortStableFunc, or let RankBids do so. The criteria, in order:
//
//  1. availability: available, or not reported (the pass-through shape never reports it), before
//     busy, offline or anything else;
//  2. the higher Rating (the contract's shape), then the higher Score (the marketplace's
//     pass-through shape). A list from the gateway holds one shape, so only one of the two differs
//     between its bids; in a list mixing shapes, rated bids come first, as a Rating and a Score are
//     on different scales and never compared with each other;
//  3. the lower PricePerSecond (prices in different currencies, which no answer of the gateway
//     mixes, are ordered by currency name instead, as no exchange rate exists to compare them);
//  4. the older bid (CreatedAt); a bid that does not say when it was placed comes after one that does.
func CompareBids(a, b RatedBid) int {
	if c := cmp.Compare(availabilityRank(a), availabilityRank(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Rating, a.Rating); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := comparePrices(a.PricePerSecond, b.PricePerSecond); c != 0 {
		return c
	}
	return compareAge(a.CreatedAt, b.CreatedAt)
}

// RankBids returns the bids best first, as CompareBids ranks them; bids that rank the same keep
// their order. bids itself is left as it is.
func RankBids(bids []RatedBid) []RatedBid {
	ranked := slices.Clone(bids)
	slices.SortStableFunc(ranked, CompareBids)
	return ranked
}

// BestBid returns the best of the bids that can take a session, as CompareBids ranks them: those
// available or not reporting availability. ok is false when no bid qualifies. Of bids that rank
// the same, the first in the list is returned.
func BestBid(bids []RatedBid) (best RatedBid, ok bool) {
	return pickBid(bids, CompareBids)
}

// CheapestBid returns the bid with the lowest PricePerSecond of those that can take a session
// (available, or not reporting availability as bids in the pass-through shape do not). Of bids with
// the same price, the better one as CompareBids ranks them is returned. ok is false when no bid
// qualifies.
func CheapestBid(bids []RatedBid) (cheapest RatedBid, ok bool) {
	return pickBid(bids, func(a, b RatedBid) int {
		if c := comparePrices(a.PricePerSecond, b.PricePerSecond); c != 0 {
			return c
		}
		return CompareBids(a, b)
	})
}

// pickBid returns the first of the qualifying bids that no later one beats by compare.
func pickBid(bids []RatedBid, compare func(a, b RatedBid) int) (RatedBid, bool) {
	var best RatedBid
	ok := false
	for _, b := range bids {
		if availabilityRank(b) == 0 && (!ok || compare(b, best) < 0) {
			best, ok = b, true
		}
	}
	return best, ok
}

// availabilityRank is 0 for a bid that can take a session now, as far as the gateway says, else 1.
func availabilityRank(b RatedBid) int {
	if b.Availability == AvailabilityAvailable || b.Availability == "" {
		return 0
	}
	return 1
}

func comparePrices(a, b Money) int {
	if a.Currency != b.Currency {
		return strings.Compare(string(a.Currency), string(b.Currency))
	}
	return a.Amount.Cmp(b.Amount)
}

// compareAge puts the older time first, and an unknown (zero) time after any known one.
func compareAge(a, b time.Time) int {
	if a.IsZero() != b.IsZero() {
		if a.IsZero() {
			return 1
		}
		return -1
	}
	return a.Compare(b)
}
