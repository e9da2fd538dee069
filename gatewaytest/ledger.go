package gatewaytest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/infergate/infergate-go"
)

// The ledger's entry types and statuses, as GET /billing/transactions sends them.
const (
	EntryPurchase       = "purchase"
	EntryStakingRefresh = "staking_refresh"
	EntryUsageHold      = "usage_hold"
	EntryUsageCharge    = "usage_charge"
	EntryRefund         = "refund"
	EntryAdjustment     = "adjustment"

	StatusPending = "pending"
	StatusPosted  = "posted"
	StatusVoided  = "voided"
)

var entryTypes = []string{EntryPurchase, EntryStakingRefresh, EntryUsageHold, EntryUsageCharge, EntryRefund, EntryAdjustment}

// LedgerEntry is one row of the account's ledger as GET /billing/transactions
// lists it. Amounts and prices are decimal strings, as the gateway sends them;
// a debit is negative. Strings left empty are sent as null, but the amounts,
// which are sent as "0".
type LedgerEntry struct {
	ID          string // id; AddLedger gives a UUID when empty
	Status      string // status: StatusPending, StatusPosted or StatusVoided
	EntryType   string // entry_type: EntryPurchase, EntryUsageCharge, ...
	AmountPaid  string // amount_paid
	AmountStake string // amount_staking
	AmountTotal string // amount_total; not checked against the parts

	RequestID         string // request_id: the X-Request-Id of the call billed
	APIKeyID          *int   // api_key_id; nil sends null
	ModelName         string // model_name
	ModelBlockchainID string // model_id
	Endpoint          string // endpoint, e.g. /v1/chat/completions
	InputTokens       int    // tokens_input
	OutputTokens      int    // tokens_output
	TotalTokens       int    // tokens_total
	InputPrice        string // input_price_per_million
	OutputPrice       string // output_price_per_million
	FailureCode       string // failure_code, on a voided hold
	FailureReason     string // failure_reason
	Description       string // description

	IdempotencyKey        string         // idempotency_key
	RelatedEntryID        string         // related_entry_id
	PaymentSource         string         // payment_source, e.g. stripe
	ExternalTransactionID string         // external_transaction_id
	PaymentMetadata       map[string]any // payment_metadata; nil sends null

	// CreatedAt is created_at, which the from and to filters compare and Spending
	// sums by; UpdatedAt is updated_at, CreatedAt when zero. Both are kept to the
	// microsecond, as the gateway's database keeps them, and sent as naive UTC.
	CreatedAt, UpdatedAt time.Time
}

// AddLedger appends entries to the ledger as they are. Entries without an ID
// get a fresh one. The server's own rows come from usage records: each
// record (AddUsage, or a chat, embeddings or speech call the server answers)
// is also a posted usage_charge row with the record's id, tokens and prices,
// its amounts negated (a usage record says what a call cost, the ledger
// debits it). A chat call that fails after the gateway would have held its
// cost (a model down, a stream cut short or failed, the client gone) leaves a
// voided usage_hold, with a failure code as the gateway writes them.
func (s *Server) AddLedger(entries ...LedgerEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range entries {
		if e.ID == "" {
			e.ID = s.billingID()
		}
		e.CreatedAt = e.CreatedAt.UTC().Truncate(time.Microsecond)
		if e.UpdatedAt.IsZero() {
			e.UpdatedAt = e.CreatedAt
		}
		e.UpdatedAt = e.UpdatedAt.UTC().Truncate(time.Microsecond)
		s.account.ledger = append(s.account.ledger, e)
	}
}

// Ledger returns copies of every ledger row, oldest first.
func (s *Server) Ledger() []LedgerEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.account.ledger)
}

// billingID is a fresh id for a billing row, counted apart from the server's
// other ids so that billing a call does not change them. s.mu must be held.
func (s *Server) billingID() string {
	s.account.rows++
	return fmt.Sprintf("00000000-0000-4000-9000-%012x", s.account.rows)
}

// charge is the ledger row of a usage record.
func charge(rec UsageRecord) LedgerEntry {
	return LedgerEntry{ID: rec.ID, Status: StatusPosted, EntryType: EntryUsageCharge,
		AmountPaid: negate(rec.AmountPaid), AmountStake: negate(rec.AmountStake), AmountTotal: negate(rec.AmountTotal),
		RequestID: rec.RequestID, APIKeyID: rec.APIKeyID, ModelName: rec.ModelName, ModelBlockchainID: rec.ModelBlockchainID,
		Endpoint: rec.Endpoint, InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens, TotalTokens: rec.TotalTokens,
		InputPrice: rec.InputPrice, OutputPrice: rec.OutputPrice, CreatedAt: rec.CreatedAt}
}

// negate writes -x for a decimal string x: a cost as the ledger debits it.
func negate(x string) string {
	x = strings.TrimSpace(x)
	switch {
	case strings.Trim(x, "0.") == "":
		return cmp.Or(x, "0")
	case strings.HasPrefix(x, "-"):
		return x[1:]
	}
	return "-" + strings.TrimPrefix(x, "+")
}

// voidHold records a chat call that failed after the gateway held its cost:
// a usage_hold, voided, amounts zero, with the failure's code and reason.
func (s *Server) voidHold(r *http.Request, model string, promptTokens int, code, reason string) {
	e := LedgerEntry{Status: StatusVoided, EntryType: EntryUsageHold, AmountPaid: "0", AmountStake: "0", AmountTotal: "0",
		ModelName: model, ModelBlockchainID: HexID(model), Endpoint: chatEndpoint, InputTokens: promptTokens,
		TotalTokens: promptTokens, FailureCode: code, FailureReason: reason, CreatedAt: s.now(r)}
	if rec, ok := r.Context().Value(recordKey{}).(*Request); ok {
		e.RequestID = rec.RequestID
	}
	s.AddLedger(e)
}

// chatEndpoint is the endpoint the ledger names for chat calls.
const chatEndpoint = "/v1/chat/completions"

// isoformat writes a time as Python's datetime.isoformat does for a naive
// UTC time: microseconds only when there are some.
func isoformat(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.UTC().Format("2006-01-02T15:04:05")
	}
	return t.UTC().Format(TimeLayout)
}

// wire is the row as the gateway sends it.
func (e LedgerEntry) wire() map[string]any {
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var meta any
	if e.PaymentMetadata != nil {
		meta = e.PaymentMetadata
	}
	return map[string]any{"id": e.ID, "user_id": 1, "currency": "USD", "status": e.Status, "entry_type": e.EntryType,
		"amount_paid": cmp.Or(e.AmountPaid, "0"), "amount_staking": cmp.Or(e.AmountStake, "0"), "amount_total": cmp.Or(e.AmountTotal, "0"),
		"idempotency_key": orNull(e.IdempotencyKey), "related_entry_id": orNull(e.RelatedEntryID),
		"payment_source": orNull(e.PaymentSource), "external_transaction_id": orNull(e.ExternalTransactionID),
		"payment_metadata": meta, "request_id": orNull(e.RequestID), "api_key_id": e.APIKeyID,
		"model_name": orNull(e.ModelName), "model_id": orNull(e.ModelBlockchainID), "endpoint": orNull(e.Endpoint),
		"tokens_input": e.InputTokens, "tokens_output": e.OutputTokens, "tokens_total": e.TotalTokens,
		"input_price_per_million": orNull(e.InputPrice), "output_price_per_million": orNull(e.OutputPrice),
		"failure_code": orNull(e.FailureCode), "failure_reason": orNull(e.FailureReason), "description": orNull(e.Description),
		"created_at": isoformat(e.CreatedAt), "updated_at": isoformat(e.UpdatedAt)}
}

// handleTransactions answers one page of the ledger, newest first, the way
// the gateway pages and filters it: limit (at least 1, no maximum) and offset,
// entry_type, and from and to as inclusive bounds on created_at.
func (s *Server) handleTransactions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
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
	entryType := q.Get("entry_type")
	if entryType != "" && !slices.Contains(entryTypes, entryType) {
		validation(w, "enum", []any{"query", "entry_type"}, "Input should be "+strings.Join(entryTypes, ", "), entryType)
		return
	}
	var bounds [2]time.Time
	for i, name := range []string{"from", "to"} {
		if v := q.Get(name); v != "" {
			t, err := parseDatetime(v)
			if err != nil {
				validation(w, "datetime_from_date_parsing", []any{"query", name}, "Input should be a valid datetime", v)
				return
			}
			bounds[i] = t
		}
	}
	match := s.ledgerRows(func(e LedgerEntry) bool {
		return (entryType == "" || e.EntryType == entryType) &&
			(bounds[0].IsZero() || !e.CreatedAt.Before(bounds[0])) && (bounds[1].IsZero() || !e.CreatedAt.After(bounds[1]))
	})
	page := match[min(offset, len(match)):min(offset+limit, len(match))]
	items := make([]map[string]any, len(page))
	for i, e := range page {
		items[i] = e.wire()
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items, "total": len(match), "limit": limit,
		"offset": offset, "has_more": offset+len(page) < len(match)})
}

// ledgerRows returns the rows keep accepts, newest first; rows made at one
// instant are listed last added first.
func (s *Server) ledgerRows(keep func(LedgerEntry) bool) []LedgerEntry {
	s.mu.Lock()
	var match []LedgerEntry
	for i := len(s.account.ledger) - 1; i >= 0; i-- {
		if e := s.account.ledger[i]; keep(e) {
			match = append(match, e)
		}
	}
	s.mu.Unlock()
	slices.SortStableFunc(match, func(a, b LedgerEntry) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return match
}

// parseDatetime reads a query datetime as the gateway's pydantic does: ISO
// 8601 with or without an offset (without one it is UTC), a date (its
// midnight), or Unix seconds.
func parseDatetime(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", time.DateOnly} {
		if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Unix(0, int64(secs*1e9)).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("not a datetime: %q", v)
}

// handleSpending sums the posted rows of a year by the month they were made
// in: usage charges (mode gross, the default), or usage charges and refunds
// (mode net). Every month is listed, empty ones too; year defaults to the
// server's current year.
func (s *Server) handleSpending(w http.ResponseWriter, r *http.Request) {
	year, ok := intQuery(w, r, "year", s.now(r).Year())
	if !ok {
		return
	}
	mode := cmp.Or(r.URL.Query().Get("mode"), "gross")
	counted := map[string][]string{"gross": {EntryUsageCharge}, "net": {EntryUsageCharge, EntryRefund}}[mode]
	if counted == nil {
		validation(w, "enum", []any{"query", "mode"}, "Input should be 'gross' or 'net'", mode)
		return
	}
	rows := s.ledgerRows(func(e LedgerEntry) bool {
		return e.Status == StatusPosted && slices.Contains(counted, e.EntryType) && e.CreatedAt.Year() == year
	})
	var sums [12]infergate.Decimal
	var counts [12]int
	var total infergate.Decimal
	for _, e := range rows {
		amount, err := infergate.ParseDecimal(cmp.Or(e.AmountTotal, "0"))
		if err != nil {
			detail(w, http.StatusInternalServerError, "Error fetching spending data: "+err.Error())
			return
		}
		m := e.CreatedAt.Month() - 1
		sums[m], counts[m], total = sums[m].Add(amount), counts[m]+1, total.Add(amount)
	}
	months := make([]map[string]any, 12)
	for i := range months {
		months[i] = map[string]any{"year": year, "month": i + 1, "amount": sums[i].String(), "transaction_count": counts[i]}
	}
	writeJSON(w, http.StatusOK, map[string]any{"year": year, "mode": mode, "months": months, "total": total.String(), "currency": "USD"})
}
