package infergate

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EntryType is the kind of a ledger entry.
type EntryType string

// The entry types the gateway's ledger holds. A call makes one entry: a hold while it runs, which
// becomes its charge when it succeeds and stays a voided hold when it fails.
const (
	EntryTypePurchase       EntryType = "purchase"        // credits bought
	EntryTypeStakingRefresh EntryType = "staking_refresh" // the daily staking allowance granted
	EntryTypeUsageHold      EntryType = "usage_hold"      // a call's estimated cost, held while it runs
	EntryTypeUsageCharge    EntryType = "usage_charge"    // what a call that succeeded cost
	EntryTypeRefund         EntryType = "refund"          // credits given back
	EntryTypeAdjustment     EntryType = "adjustment"      // a correction made by the gateway's operator
)

var entryTypes = []EntryType{EntryTypePurchase, EntryTypeStakingRefresh, EntryTypeUsageHold, EntryTypeUsageCharge,
	EntryTypeRefund, EntryTypeAdjustment}

// EntryStatus is where a ledger entry is in its life.
type EntryStatus string

// The statuses of a ledger entry.
const (
	EntryStatusPending EntryStatus = "pending" // a hold on a call still running, with estimated amounts
	EntryStatusPosted  EntryStatus = "posted"  // booked: it counts in the balance and in Spending
	EntryStatusVoided  EntryStatus = "voided"  // cancelled, amounts zero: a failed call's hold
)

// LedgerEntry is one entry of the account's ledger: a purchase, a staking allowance, a call's hold
// or charge, a refund or an adjustment. Amounts are in Currency (CurrencyUSD on the gateway), exact;
// a debit is negative.
type LedgerEntry struct {
	ID       string      // the entry's id, a UUID; a call keeps one id from hold to charge
	UserID   int         // the account's owner
	Status   EntryStatus // pending, posted or voided
	Type     EntryType   // purchase, usage_charge, ...
	Currency Currency    // the currency of every amount and price of the entry

	// What the entry moved, split between paid credits and the staking allowance; negative for a
	// debit. AmountTotal is AmountPaid plus AmountStaking.
	AmountPaid, AmountStaking, AmountTotal Money

	// For a call (usage_hold, usage_charge): what the call was and who made it.
	RequestID         string // the X-Request-Id the call was answered with
	APIKeyID          int    // the key that made it (see APIKey.ID); 0 if none
	ModelName         string // the catalogue name of the model that served it, after resolution and fallback
	ModelBlockchainID string // that model's hex id
	Endpoint          string // the route called, e.g. "/v1/chat/completions"
	// Tokens billed: estimates while the entry is pending, the node's counts once posted.
	InputTokens, OutputTokens, TotalTokens int
	// Prices are the prices per million tokens the charge applied; nil when the entry names none
	// (a price it leaves out is zero).
	Prices *ModelPrices
	// FailureCode and FailureReason say why a call failed, on its voided hold: "stream_error",
	// "client_disconnected", an upstream HTTP status such as "502", ...
	FailureCode, FailureReason string
	Description                string // free text, e.g. for a purchase or an adjustment

	// For a purchase: how it was paid.
	IdempotencyKey        string          // the key that made it unique
	RelatedEntryID        string          // the entry it relates to, if any
	PaymentSource         string          // "stripe", "coinbase", "manual", ...
	ExternalTransactionID string          // the payment's id at its source
	PaymentMetadata       json.RawMessage // the payment provider's own data, compact JSON; nil when none

	CreatedAt time.Time // when the entry was made, in UTC
	UpdatedAt time.Time // when it last changed (a hold posted or voided), in UTC

	// Extra holds the entry's fields that LedgerEntry does not model, as the gateway sent them.
	Extra RawFields
}

// TransactionFilter narrows the ledger entries Transactions lists. The zero value lists them all.
type TransactionFilter struct {
	// Type keeps the entries of one type. The gateway refuses types it does not know; a value in
	// its spelling (lower case and '_') that is none of the EntryType constants is sent as it is,
	// for a type the gateway added later, and any other is refused before sending.
	Type EntryType
	// From and To keep the entries created in [From, To], both included; zero for no bound. The
	// ledger keeps microseconds: From is rounded up to one and To down, which keeps the same entries.
	From, To time.Time
	// PageSize is how many entries one request fetches; 0 means 100.
	PageSize int
}

// transactionPageSize is how many ledger entries one request fetches unless told otherwise.
const transactionPageSize = 100

// queryTime is how the ledger's bounds are sent: UTC to the microsecond, which the gateway reads.
const queryTime = "2006-01-02T15:04:05.999999Z07:00"

func (f TransactionFilter) query() (url.Values, int, error) {
	q := url.Values{}
	size := cmp.Or(f.PageSize, transactionPageSize)
	switch {
	case f.PageSize < 0:
		return nil, 0, invalid("PageSize", "must not be negative, got %d", f.PageSize)
	case !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From):
		return nil, 0, invalid("To", "%s is before From %s", f.To.Format(time.RFC3339Nano), f.From.Format(time.RFC3339Nano))
	}
	if f.Type != "" {
		if err := checkEntryType(f.Type); err != nil {
			return nil, 0, err
		}
		q.Set("entry_type", string(f.Type))
	}
	if !f.From.IsZero() {
		from := f.From.Truncate(time.Microsecond)
		if from.Before(f.From) {
			from = from.Add(time.Microsecond)
		}
		q.Set("from", from.UTC().Format(queryTime))
	}
	if !f.To.IsZero() {
		q.Set("to", f.To.Truncate(time.Microsecond).UTC().Format(queryTime))
	}
	return q, size, nil
}

// checkEntryType refuses a type the gateway would refuse whatever its version: one not spelt in
// lower case and '_', naming the constant it seems to mean.
func checkEntryType(t EntryType) error {
	if strings.Trim(string(t), "abcdefghijklmnopqrstuvwxyz_") == "" {
		return nil
	}
	spelt := strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(string(t)))
	for _, known := range entryTypes {
		if strings.EqualFold(spelt, string(known)) {
			return invalid("Type", "%q is not an entry type; did you mean %q?", t, known)
		}
	}
	return invalid("Type", "%q is not an entry type such as %q", t, EntryTypeUsageCharge)
}

// Transactions returns the account's ledger, newest first, fetching it a page at a time as the
// loop asks for more. An error ends the sequence; a filter it cannot send is a *ValidationError,
// and nothing is sent:
//
//	for e, err := range client.Billing.Transactions(ctx, infergate.TransactionFilter{Type: infergate.EntryTypeUsageCharge}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(e.CreatedAt, e.ModelName, e.TotalTokens, e.AmountTotal)
//	}
//
// The ledger is the user's: a key sees the entries of every key of its owner (APIKeyID tells them
// apart). No entry is yielded twice, even when new ones push entries onto the next page.
//
// GET /api/v1/billing/transactions
func (s *BillingService) Transactions(ctx context.Context, filter TransactionFilter, opts ...Option) iter.Seq2[LedgerEntry, error] {
	query, size, err := filter.query()
	id := func(e LedgerEntry) string { return e.ID }
	return billingPages(ctx, s.client, "billing.transactions", "/billing/transactions", query, err, size, id, opts)
}

// SpendingMode says what Spending sums.
type SpendingMode string

// The spending modes.
const (
	SpendingGross SpendingMode = "gross" // the calls' charges
	SpendingNet   SpendingMode = "net"   // the calls' charges and the refunds
)

// Spending is what the account spent in each month of a year: the posted entries that Mode names,
// summed by the month (UTC) they were made in. Spending is negative, a refund raises it.
type Spending struct {
	Year     int             // the year summed
	Mode     SpendingMode    // what was summed
	Months   []MonthSpending // January to December: the gateway sends all twelve, empty months too
	Total    Money           // the year's sum
	Currency Currency        // the currency of every amount
}

// MonthSpending is one month of Spending.
type MonthSpending struct {
	Year         int        // the year, as Spending's
	Month        time.Month // the month (UTC)
	Amount       Money      // the month's sum, negative
	Transactions int        // how many entries it sums
}

// Spending returns the account's spending by month in year (0: the gateway's current year), in
// mode (empty: SpendingGross). A year outside 0–9999 or another mode is a *ValidationError, and
// nothing is sent.
//
// GET /api/v1/billing/spending
func (s *BillingService) Spending(ctx context.Context, year int, mode SpendingMode, opts ...Option) (*Spending, error) {
	q := url.Values{}
	switch {
	case year < 0 || year > 9999:
		return nil, invalid("Year", "%d is not a year from 1 to 9999 (or 0 for this year)", year)
	case mode != "" && mode != SpendingGross && mode != SpendingNet:
		return nil, invalid("Mode", "must be %q or %q, got %q", SpendingGross, SpendingNet, mode)
	case year != 0:
		q.Set("year", strconv.Itoa(year))
	}
	if mode != "" {
		q.Set("mode", string(mode))
	}
	var out Spending
	r := route{op: "billing.spending", method: http.MethodGet, path: "/billing/spending", query: q, auth: authHistory}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ledgerKeys are the JSON names LedgerEntry models; the entry's other fields go to Extra.
var ledgerKeys = []string{"id", "user_id", "currency", "status", "entry_type", "amount_paid", "amount_staking",
	"amount_total", "idempotency_key", "related_entry_id", "payment_source", "external_transaction_id",
	"payment_metadata", "request_id", "api_key_id", "model_name", "model_id", "endpoint", "tokens_input",
	"tokens_output", "tokens_total", "input_price_per_million", "output_price_per_million", "failure_code",
	"failure_reason", "description", "created_at", "updated_at"}

// wireLedgerEntry is a LedgerEntry as the gateway sends it: amounts as bare decimal strings in the
// entry's currency, nulls for what an entry does not have, naive UTC timestamps.
type wireLedgerEntry struct {
	ID                    string          `json:"id"`
	UserID                int             `json:"user_id"`
	Currency              Currency        `json:"currency"`
	Status                EntryStatus     `json:"status"`
	Type                  EntryType       `json:"entry_type"`
	AmountPaid            Decimal         `json:"amount_paid"`
	AmountStaking         Decimal         `json:"amount_staking"`
	AmountTotal           Decimal         `json:"amount_total"`
	IdempotencyKey        string          `json:"idempotency_key"`
	RelatedEntryID        string          `json:"related_entry_id"`
	PaymentSource         string          `json:"payment_source"`
	ExternalTransactionID string          `json:"external_transaction_id"`
	PaymentMetadata       json.RawMessage `json:"payment_metadata"`
	RequestID             string          `json:"request_id"`
	APIKeyID              int             `json:"api_key_id"`
	ModelName             string          `json:"model_name"`
	ModelBlockchainID     string          `json:"model_id"`
	Endpoint              string          `json:"endpoint"`
	InputTokens           int             `json:"tokens_input"`
	OutputTokens          int             `json:"tokens_output"`
	TotalTokens           int             `json:"tokens_total"`
	InputPrice            *Decimal        `json:"input_price_per_million"`
	OutputPrice           *Decimal        `json:"output_price_per_million"`
	FailureCode           string          `json:"failure_code"`
	FailureReason         string          `json:"failure_reason"`
	Description           string          `json:"description"`
	CreatedAt             timestamp       `json:"created_at"`
	UpdatedAt             timestamp       `json:"updated_at"`
}

// UnmarshalJSON reads an entry as the gateway sends it: amounts and prices in its "currency"
// (CurrencyUSD when missing), as decimal strings or numbers; timestamps with or without an offset
// (without one they are UTC), kept in UTC; nulls as zero values. The fields it does not model go to
// Extra.
func (e *LedgerEntry) UnmarshalJSON(b []byte) error {
	var w wireLedgerEntry
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	currency := cmp.Or(w.Currency, CurrencyUSD)
	in := func(d Decimal) Money { return Money{Amount: d, Currency: currency} }
	*e = LedgerEntry{ID: w.ID, UserID: w.UserID, Status: w.Status, Type: w.Type, Currency: currency,
		AmountPaid: in(w.AmountPaid), AmountStaking: in(w.AmountStaking), AmountTotal: in(w.AmountTotal),
		RequestID: w.RequestID, APIKeyID: w.APIKeyID, ModelName: w.ModelName, ModelBlockchainID: w.ModelBlockchainID,
		Endpoint: w.Endpoint, InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, TotalTokens: w.TotalTokens,
		FailureCode: w.FailureCode, FailureReason: w.FailureReason, Description: w.Description,
		IdempotencyKey: w.IdempotencyKey, RelatedEntryID: w.RelatedEntryID, PaymentSource: w.PaymentSource,
		ExternalTransactionID: w.ExternalTransactionID, Extra: unmodelled(b, ledgerKeys)}
	if w.InputPrice != nil || w.OutputPrice != nil {
		e.Prices = &ModelPrices{Input: in(*cmp.Or(w.InputPrice, &Decimal{})), Output: in(*cmp.Or(w.OutputPrice, &Decimal{}))}
	}
	if meta := bytes.TrimSpace(w.PaymentMetadata); len(meta) > 0 && string(meta) != "null" {
		var compact bytes.Buffer
		if err := json.Compact(&compact, meta); err != nil {
			return err
		}
		e.PaymentMetadata = compact.Bytes()
	}
	var err error
	if e.CreatedAt, err = entryTime("created_at", w.CreatedAt); err != nil {
		return err
	}
	e.UpdatedAt, err = entryTime("updated_at", w.UpdatedAt)
	return err
}

// entryTime is a ledger time in UTC. One whose UTC year has not four digits (an offset pushed it
// past 9999, say) could not be written back, and is refused.
func entryTime(field string, t timestamp) (time.Time, error) {
	if time.Time(t).IsZero() {
		return time.Time{}, nil
	}
	utc := time.Time(t).UTC()
	if utc.Year() < 0 || utc.Year() > 9999 {
		return time.Time{}, fmt.Errorf("infergate: %s %s is beyond the years 0 to 9999 in UTC", field, time.Time(t).Format(time.RFC3339Nano))
	}
	return utc, nil
}

// MarshalJSON writes the entry in the gateway's shape, amounts and prices as decimal strings beside
// one "currency", then Extra's fields. An amount or price in another currency than the entry's
// (CurrencyUSD when empty), or an Extra field that names a modelled one, is refused with a
// *ValidationError.
func (e LedgerEntry) MarshalJSON() ([]byte, error) {
	currency := cmp.Or(e.Currency, CurrencyUSD)
	var err error
	amount := func(field string, m Money) Decimal {
		d, werr := wireAmount(field, m, currency)
		err = cmp.Or(err, werr)
		return d
	}
	w := wireLedgerEntry{ID: e.ID, UserID: e.UserID, Currency: currency, Status: e.Status, Type: e.Type,
		AmountPaid: amount("AmountPaid", e.AmountPaid), AmountStaking: amount("AmountStaking", e.AmountStaking),
		AmountTotal: amount("AmountTotal", e.AmountTotal), IdempotencyKey: e.IdempotencyKey,
		RelatedEntryID: e.RelatedEntryID, PaymentSource: e.PaymentSource, ExternalTransactionID: e.ExternalTransactionID,
		PaymentMetadata: e.PaymentMetadata, RequestID: e.RequestID, APIKeyID: e.APIKeyID, ModelName: e.ModelName,
		ModelBlockchainID: e.ModelBlockchainID, Endpoint: e.Endpoint, InputTokens: e.InputTokens,
		OutputTokens: e.OutputTokens, TotalTokens: e.TotalTokens, FailureCode: e.FailureCode,
		FailureReason: e.FailureReason, Description: e.Description, CreatedAt: timestamp(e.CreatedAt),
		UpdatedAt: timestamp(e.UpdatedAt)}
	if e.Prices != nil {
		input, output := amount("Prices.Input", e.Prices.Input), amount("Prices.Output", e.Prices.Output)
		w.InputPrice, w.OutputPrice = &input, &output
	}
	for _, k := range slices.Sorted(maps.Keys(e.Extra)) {
		if modelledKey(k, ledgerKeys) {
			err = cmp.Or(err, error(invalid("Extra["+strconv.Quote(k)+"]", "names a field LedgerEntry models: set that field")))
		}
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	return withFields(b, e.Extra)
}

// wireSpending is a Spending as the gateway sends it.
type wireSpending struct {
	Year     int                 `json:"year"`
	Mode     SpendingMode        `json:"mode"`
	Months   []wireMonthSpending `json:"months"`
	Total    Decimal             `json:"total"`
	Currency Currency            `json:"currency"`
}

type wireMonthSpending struct {
	Year             int     `json:"year"`
	Month            int     `json:"month"`
	Amount           Decimal `json:"amount"`
	TransactionCount int     `json:"transaction_count"`
}

// UnmarshalJSON reads a summary as the gateway sends it, each amount in its "currency"
// (CurrencyUSD when missing).
func (s *Spending) UnmarshalJSON(b []byte) error {
	var w wireSpending
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	currency := cmp.Or(w.Currency, CurrencyUSD)
	*s = Spending{Year: w.Year, Mode: w.Mode, Total: Money{Amount: w.Total, Currency: currency}, Currency: currency}
	for _, m := range w.Months {
		s.Months = append(s.Months, MonthSpending{Year: m.Year, Month: time.Month(m.Month),
			Amount: Money{Amount: m.Amount, Currency: currency}, Transactions: m.TransactionCount})
	}
	return nil
}

// MarshalJSON writes the summary in the gateway's shape, amounts as decimal strings beside one
// "currency". An amount in another currency than the summary's (CurrencyUSD when empty) is refused
// with a *ValidationError.
func (s Spending) MarshalJSON() ([]byte, error) {
	currency := cmp.Or(s.Currency, CurrencyUSD)
	w := wireSpending{Year: s.Year, Mode: s.Mode, Currency: currency}
	total, err := wireAmount("Total", s.Total, currency)
	w.Total = total
	w.Months = make([]wireMonthSpending, len(s.Months))
	for i, m := range s.Months {
		amount, e := wireAmount("Months["+strconv.Itoa(i)+"].Amount", m.Amount, currency)
		err = cmp.Or(err, e)
		w.Months[i] = wireMonthSpending{Year: m.Year, Month: int(m.Month), Amount: amount, TransactionCount: m.Transactions}
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}
