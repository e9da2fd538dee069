package gatewaytest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Balance is what GET /billing/balance answers. Amounts are decimal strings,
// as the gateway sends them.
type Balance struct {
	PostedBalance  string // paid.posted_balance: credits booked
	PendingHolds   string // paid.pending_holds: held by running calls, zero or negative
	PaidAvailable  string // paid.available
	DailyAmount    string // staking.daily_amount: the allowance granted each day
	RefreshDate    string // a calendar date such as 2025-10-15; empty sends null
	StakeAvailable string // staking.available: what is left of today's allowance
	TotalAvailable string // total_available; not checked against the parts
	IsStaker       bool   // is_staker
	AllowOverage   bool   // allow_overage: a staker's calls go on from paid credits
}

// DefaultBalance is the balance a server reports unless SetBalance says
// otherwise: 24.875 paid and 7.5 staking credits, 32.375 in all.
func DefaultBalance() Balance {
	return Balance{PostedBalance: "25", PendingHolds: "-0.125", PaidAvailable: "24.875",
		DailyAmount: "10", RefreshDate: "2025-10-15", StakeAvailable: "7.5", TotalAvailable: "32.375",
		IsStaker: true}
}

// SetBalance replaces the balance later balance requests report.
func (s *Server) SetBalance(b Balance) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.account.balance = b
}

// UsageRecord is one billed call as GET /billing/usage lists it.
type UsageRecord struct {
	ID                string    // id; AddUsage gives a UUID when empty
	CreatedAt         time.Time // created_at, sent as UTC in TimeLayout; the from and to filters compare it
	ModelName         string    // model_name; the model filter matches it exactly
	ModelBlockchainID string    // model_id; the server's own calls set HexID(ModelName)
	Endpoint          string    // endpoint, e.g. /v1/embeddings
	InputTokens       int       // tokens_input
	OutputTokens      int       // tokens_output
	TotalTokens       int       // tokens_total; not checked against the parts
	AmountPaid        string    // amount_paid, a decimal string
	AmountStake       string    // amount_staking, a decimal string
	AmountTotal       string    // amount_total, a decimal string
	RequestID         string    // request_id: the X-Request-Id of the billed call
	APIKeyID          *int      // api_key_id; nil sends null
	// InputPrice and OutputPrice are the prices per million tokens the call was
	// charged at, decimal strings; the ledger sends them (empty as null), the
	// usage routes do not. The server's own calls charge 1 and 1.
	InputPrice, OutputPrice string
}

// AddUsage appends billed calls to the usage list, as if they had just been
// made, and their charges to the ledger (see AddLedger). Records without an ID
// get a fresh one. Chat, embeddings and speech requests add their own record
// too.
func (s *Server) AddUsage(records ...UsageRecord) {
	for _, rec := range records {
		if rec.ID == "" {
			rec.ID = s.uuid()
		}
		s.mu.Lock()
		s.account.usage = append(s.account.usage, rec)
		s.mu.Unlock()
		s.AddLedger(charge(rec))
	}
}

// Usage returns copies of every usage record, oldest first.
func (s *Server) Usage() []UsageRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.account.usage)
}

// account is the in-memory billing and key state of the one user.
type account struct {
	balance Balance
	usage   []UsageRecord
	ledger  []LedgerEntry // oldest first
	rows    uint64        // ledger rows the server made, for their ids
	keys    []*AccountKey
}

// bill records a call of r to model at a fixed price of one millionth per
// token (1 per million, input and output), paid from the staking allowance.
func (s *Server) bill(r *http.Request, model, endpoint string, in, out int) {
	rec := UsageRecord{CreatedAt: s.now(r), ModelName: model, ModelBlockchainID: HexID(model), Endpoint: endpoint,
		InputTokens: in, OutputTokens: out, TotalTokens: in + out,
		AmountPaid: "0", AmountStake: micros(in + out), AmountTotal: micros(in + out), InputPrice: "1", OutputPrice: "1"}
	if id, ok := r.Context().Value(recordKey{}).(*Request); ok {
		rec.RequestID = id.RequestID
	}
	s.mu.Lock()
	rec.ID = s.billingID()
	s.mu.Unlock()
	s.AddUsage(rec)
}

// micros writes n millionths as a plain decimal string, such as 0.000012.
func micros(n int) string {
	text := strings.TrimRight(fmt.Sprintf("%d.%06d", n/1e6, n%1e6), "0")
	return strings.TrimSuffix(text, ".")
}

func (s *Server) handleBalance(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	b := s.account.balance
	s.mu.Unlock()
	var refresh any
	if b.RefreshDate != "" {
		refresh = b.RefreshDate
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"paid":            map[string]any{"posted_balance": b.PostedBalance, "pending_holds": b.PendingHolds, "available": b.PaidAvailable},
		"staking":         map[string]any{"daily_amount": b.DailyAmount, "refresh_date": refresh, "available": b.StakeAvailable},
		"total_available": b.TotalAvailable, "is_staker": b.IsStaker, "allow_overage": b.AllowOverage, "currency": "USD",
	})
}

func (s *Server) handleUsage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var from, to time.Time
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"from", &from}, {"to", &to}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				validation(w, "datetime_from_date_parsing", []any{"query", p.name}, "Input should be a valid datetime", v)
				return
			}
			*p.t = t
		}
	}
	s.listUsage(w, r, from, to, q.Get("model"))
}

func (s *Server) handleUsageMonth(w http.ResponseWriter, r *http.Request) {
	year, ok := intQuery(w, r, "year", -1)
	if !ok {
		return
	}
	month, ok := intQuery(w, r, "month", -1)
	if !ok {
		return
	}
	if year < 1 || month < 1 || month > 12 {
		validation(w, "missing", []any{"query", "year/month"}, "year and a month from 1 to 12 are required", nil)
		return
	}
	from := time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC)
	s.listUsage(w, r, from, from.AddDate(0, 1, 0), "")
}

// listUsage answers one page of the usage list, newest first, the way the
// gateway pages: limit and offset, a total, and has_more.
func (s *Server) listUsage(w http.ResponseWriter, r *http.Request, from, to time.Time, model string) {
	limit, ok := intQuery(w, r, "limit", 50)
	if !ok {
		return
	}
	offset, ok := intQuery(w, r, "offset", 0)
	if !ok {
		return
	}
	if limit < 1 || offset < 0 {
		validation(w, "greater_than_equal", []any{"query", "limit"}, "limit must be at least 1 and offset at least 0", nil)
		return
	}
	s.mu.Lock()
	var match []UsageRecord
	for i := len(s.account.usage) - 1; i >= 0; i-- {
		rec := s.account.usage[i]
		if (!from.IsZero() && rec.CreatedAt.Before(from)) || (!to.IsZero() && !rec.CreatedAt.Before(to)) ||
			(model != "" && rec.ModelName != model) {
			continue
		}
		match = append(match, rec)
	}
	s.mu.Unlock()
	page := match[min(offset, len(match)):min(offset+limit, len(match))]
	items := make([]map[string]any, len(page))
	for i, rec := range page {
		items[i] = map[string]any{"id": rec.ID, "created_at": rec.CreatedAt.UTC().Format(TimeLayout),
			"model_name": rec.ModelName, "model_id": rec.ModelBlockchainID, "endpoint": rec.Endpoint,
			"tokens_input": rec.InputTokens, "tokens_output": rec.OutputTokens, "tokens_total": rec.TotalTokens,
			"amount_paid": rec.AmountPaid, "amount_staking": rec.AmountStake, "amount_total": rec.AmountTotal,
			"request_id": rec.RequestID, "api_key_id": rec.APIKeyID}
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items, "total": len(match), "limit": limit,
		"offset": offset, "has_more": offset+len(page) < len(match)})
}
