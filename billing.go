package infergate

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/infergate/infergate-go/internal/pagination"
)

// BillingService reports the account's balance and what its calls cost. Get it as Client.Billing.
//
// Its routes take the access token from WithAccessToken when the client has one, and the API key
// otherwise. Amounts are Money in the account's currency (CurrencyUSD), exact, never floats.
type BillingService struct{ client *Client }

// usagePageSize is how many usage records one request fetches.
const usagePageSize = 100

// Balance is what the account can spend: paid credits plus the daily staking allowance. Every
// amount is in the account's currency, Currency.
type Balance struct {
	// Paid is the bought credits: booked, held by running calls, and available.
	Paid PaidBalance
	// Staking is the daily allowance that MOR staked by a linked wallet earns (see IsStaker).
	Staking StakingBalance
	// TotalAvailable is what can be spent now: the paid and the staking amounts available.
	TotalAvailable Money
	IsStaker       bool // a linked wallet has MOR staked
	// AllowOverage lets a staker's calls go on from paid credits once the staking allowance is spent.
	AllowOverage bool
	// Currency is the account's currency as the gateway names it, CurrencyUSD when it does not.
	Currency Currency
}

// PaidBalance is the bought credits.
type PaidBalance struct {
	PostedBalance Money `json:"posted_balance"` // credits booked to the account
	PendingHolds  Money `json:"pending_holds"`  // reserved by calls still running; zero or negative
	Available     Money `json:"available"`      // posted balance plus pending holds
}

// StakingBalance is the daily allowance that staking MOR earns, valued in the account's currency.
type StakingBalance struct {
	DailyAmount Money     `json:"daily_amount"` // the allowance granted each day
	RefreshDate time.Time `json:"refresh_date"` // the day it was last granted (UTC); zero if never
	Available   Money     `json:"available"`    // what is left of it today
}

// Balance returns what the account can spend.
//
// GET /api/v1/billing/balance
func (s *BillingService) Balance(ctx context.Context, opts ...Option) (*Balance, error) {
	var out Balance
	r := route{op: "billing.balance", method: http.MethodGet, path: "/billing/balance", auth: authHistory}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UsageRecord is one billed call.
type UsageRecord struct {
	ID        string    `json:"id"`         // the ledger entry's id, a UUID
	CreatedAt time.Time `json:"created_at"` // when the call was billed
	// ModelName is the catalogue name of the model that served the call, after any fallback.
	ModelName         string `json:"model_name"`
	ModelBlockchainID string `json:"model_id"` // the model's hex id
	Endpoint          string `json:"endpoint"` // the route called, e.g. "/chat/completions"
	// Token counts; zero when the gateway did not record them.
	InputTokens  int `json:"tokens_input"`
	OutputTokens int `json:"tokens_output"` // tokens generated
	TotalTokens  int `json:"tokens_total"`  // input plus output, as the gateway recorded it
	// What the call cost, split between paid credits and the staking allowance, in the account's
	// currency. The usage routes do not name it; it is the balance's, CurrencyUSD.
	AmountPaid    Money  `json:"amount_paid"`
	AmountStaking Money  `json:"amount_staking"` // the part taken from the staking allowance
	AmountTotal   Money  `json:"amount_total"`   // AmountPaid plus AmountStaking
	RequestID     string `json:"request_id"`     // the X-Request-Id the call was answered with
	APIKeyID      int    `json:"api_key_id"`     // the key that made the call (see APIKey.ID); 0 if none
}

// UsageFilter narrows the usage records listed. The zero value lists them all.
type UsageFilter struct {
	From  time.Time // only records created at or after this instant; zero for no bound
	To    time.Time // only records created before this instant; zero for no bound
	Model string    // only calls to this model, by name
}

func (f UsageFilter) query() (url.Values, error) {
	q := url.Values{}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return nil, invalid("To", "%s is before From %s", f.To.Format(time.RFC3339), f.From.Format(time.RFC3339))
	}
	if !f.From.IsZero() {
		q.Set("from", f.From.UTC().Format(time.RFC3339Nano))
	}
	if !f.To.IsZero() {
		q.Set("to", f.To.UTC().Format(time.RFC3339Nano))
	}
	if f.Model != "" {
		q.Set("model", f.Model)
	}
	return q, nil
}

// Usage returns the account's billed calls, newest first, fetching them a page at a time as the
// loop asks for more. An error ends the sequence:
//
//	for rec, err := range client.Billing.Usage(ctx, infergate.UsageFilter{Model: "llama-3.3-70b"}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(rec.CreatedAt, rec.AmountTotal)
//	}
//
// No record is yielded twice, even when new calls are billed while the loop runs and push records
// onto the next page; the loop remembers the ids it has yielded to do so.
//
// GET /api/v1/billing/usage
func (s *BillingService) Usage(ctx context.Context, filter UsageFilter, opts ...Option) iter.Seq2[UsageRecord, error] {
	query, err := filter.query()
	return s.usage(ctx, "/billing/usage", query, err, opts)
}

// UsageForMonth returns the billed calls of one calendar month (in UTC), newest first, like Usage.
//
// GET /api/v1/billing/usage/month
func (s *BillingService) UsageForMonth(ctx context.Context, year int, month time.Month, opts ...Option) iter.Seq2[UsageRecord, error] {
	var err error
	switch {
	case year < 1 || year > 9999:
		err = invalid("Year", "%d is not a year from 1 to 9999", year)
	case month < time.January || month > time.December:
		err = invalid("Month", "%d is not a month from 1 to 12", int(month))
	}
	query := url.Values{"year": {strconv.Itoa(year)}, "month": {strconv.Itoa(int(month))}}
	return s.usage(ctx, "/billing/usage/month", query, err, opts)
}

// usage lists usage records through billingPages; invalid is the filter's error, reported as the
// first item.
func (s *BillingService) usage(ctx context.Context, path string, query url.Values, invalid error, opts []Option) iter.Seq2[UsageRecord, error] {
	id := func(r UsageRecord) string { return r.ID }
	return billingPages(ctx, s.client, "billing.usage", path, query, invalid, usagePageSize, id, opts)
}

// billingPages lists a billing route through the SDK's one pagination loop, by limit and offset,
// query adding the filter's parameters. The route says whether more pages follow (has_more) and how
// many items match (total); either ends the listing. invalid, when set, is yielded before anything
// is sent.
func billingPages[T any](ctx context.Context, c *Client, op OperationName, path string, query url.Values, invalid error,
	pageSize int, id func(T) string, opts []Option) iter.Seq2[T, error] {
	return listPages(path, pagination.Pager[T]{
		PageSize: pageSize,
		Key:      func(item T) string { return pagination.Key(id(item), item) },
		Fetch: func(skip, limit int) (pagination.Page[T], error) {
			if invalid != nil {
				return pagination.Page[T]{}, invalid
			}
			q := url.Values{"limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(skip)}}
			for k, v := range query {
				q[k] = v
			}
			var page struct {
				Items   []T  `json:"items"`
				Total   int  `json:"total"`
				HasMore bool `json:"has_more"`
			}
			r := route{op: op, method: http.MethodGet, path: path, query: q, auth: authHistory}
			if err := run(ctx, c, opts, r, &page); err != nil {
				return pagination.Page[T]{}, err
			}
			done := !page.HasMore || (page.Total > 0 && skip+len(page.Items) >= page.Total)
			return pagination.Page[T]{Items: page.Items, Done: done, More: !done}, nil
		},
	})
}

// The billing routes send amounts as bare decimals: a balance names their currency once, in its
// "currency" field, and usage records not at all. These types read and write that shape, putting
// the currency on each amount as it is read and checking it as it is written.

// wireBalance is a Balance as the gateway sends it.
type wireBalance struct {
	Paid struct {
		PostedBalance Decimal `json:"posted_balance"`
		PendingHolds  Decimal `json:"pending_holds"`
		Available     Decimal `json:"available"`
	} `json:"paid"`
	Staking struct {
		DailyAmount Decimal     `json:"daily_amount"`
		RefreshDate refreshDate `json:"refresh_date"`
		Available   Decimal     `json:"available"`
	} `json:"staking"`
	TotalAvailable Decimal  `json:"total_available"`
	IsStaker       bool     `json:"is_staker"`
	AllowOverage   bool     `json:"allow_overage"`
	Currency       Currency `json:"currency"`
}

// UnmarshalJSON reads a balance as the gateway sends it, each amount in the balance's "currency"
// (CurrencyUSD when the field is missing). The refresh date may be a calendar date ("2025-10-15")
// or a timestamp.
func (b *Balance) UnmarshalJSON(data []byte) error {
	var w wireBalance
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	currency := cmp.Or(w.Currency, CurrencyUSD)
	in := func(d Decimal) Money { return Money{Amount: d, Currency: currency} }
	*b = Balance{
		Paid: PaidBalance{PostedBalance: in(w.Paid.PostedBalance), PendingHolds: in(w.Paid.PendingHolds),
			Available: in(w.Paid.Available)},
		Staking: StakingBalance{DailyAmount: in(w.Staking.DailyAmount), RefreshDate: time.Time(w.Staking.RefreshDate),
			Available: in(w.Staking.Available)},
		TotalAvailable: in(w.TotalAvailable), IsStaker: w.IsStaker, AllowOverage: w.AllowOverage, Currency: currency,
	}
	return nil
}

// MarshalJSON writes the balance in the gateway's shape, amounts as decimal strings beside one
// "currency". An amount in another currency than the balance's (CurrencyUSD when empty) cannot be
// written so and is refused with a *ValidationError.
func (b Balance) MarshalJSON() ([]byte, error) {
	currency := cmp.Or(b.Currency, CurrencyUSD)
	var w wireBalance
	var err error
	amount := func(field string, m Money) Decimal {
		d, e := wireAmount(field, m, currency)
		err = cmp.Or(err, error(e))
		return d
	}
	w.Paid.PostedBalance = amount("Paid.PostedBalance", b.Paid.PostedBalance)
	w.Paid.PendingHolds = amount("Paid.PendingHolds", b.Paid.PendingHolds)
	w.Paid.Available = amount("Paid.Available", b.Paid.Available)
	w.Staking.DailyAmount = amount("Staking.DailyAmount", b.Staking.DailyAmount)
	w.Staking.RefreshDate = refreshDate(b.Staking.RefreshDate)
	w.Staking.Available = amount("Staking.Available", b.Staking.Available)
	w.TotalAvailable = amount("TotalAvailable", b.TotalAvailable)
	if err != nil {
		return nil, err
	}
	w.IsStaker, w.AllowOverage, w.Currency = b.IsStaker, b.AllowOverage, currency
	return json.Marshal(w)
}

// refreshDate is the day the staking allowance was granted: a calendar date on the wire, or a
// timestamp.
type refreshDate time.Time

func (d *refreshDate) UnmarshalJSON(data []byte) error {
	var day string
	if json.Unmarshal(data, &day) == nil {
		if t, err := time.Parse(time.DateOnly, day); err == nil {
			*d = refreshDate(t)
			return nil
		}
	}
	var t timestamp
	if err := t.UnmarshalJSON(bytes.TrimSpace(data)); err != nil {
		return err
	}
	*d = refreshDate(t)
	return nil
}

// MarshalJSON writes a date at midnight UTC as the gateway does ("2025-10-15"), any other time as
// RFC 3339, and no date as null.
func (d refreshDate) MarshalJSON() ([]byte, error) {
	t := time.Time(d)
	switch {
	case t.IsZero():
		return []byte("null"), nil
	case t.Equal(t.UTC().Truncate(24 * time.Hour)):
		return json.Marshal(t.UTC().Format(time.DateOnly))
	}
	return json.Marshal(t.Format(time.RFC3339Nano))
}

// UnmarshalJSON reads a usage record, amounts in CurrencyUSD, taking a timestamp with or without a
// UTC offset (without one it is UTC); null counts and names stay zero.
func (r *UsageRecord) UnmarshalJSON(data []byte) error {
	type plain UsageRecord
	// The outer fields take the place of the record's fields of the same JSON names.
	var w struct {
		plain
		CreatedAt     timestamp `json:"created_at"`
		AmountPaid    Decimal   `json:"amount_paid"`
		AmountStaking Decimal   `json:"amount_staking"`
		AmountTotal   Decimal   `json:"amount_total"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = UsageRecord(w.plain)
	r.CreatedAt = time.Time(w.CreatedAt)
	r.AmountPaid = Money{Amount: w.AmountPaid, Currency: CurrencyUSD}
	r.AmountStaking = Money{Amount: w.AmountStaking, Currency: CurrencyUSD}
	r.AmountTotal = Money{Amount: w.AmountTotal, Currency: CurrencyUSD}
	return nil
}

// MarshalJSON writes the record in the gateway's shape, amounts as decimal strings. The shape
// carries USD amounts only: an amount in another currency is refused with a *ValidationError.
func (r UsageRecord) MarshalJSON() ([]byte, error) {
	type plain UsageRecord
	paid, errPaid := wireAmount("AmountPaid", r.AmountPaid, CurrencyUSD)
	staking, errStaking := wireAmount("AmountStaking", r.AmountStaking, CurrencyUSD)
	total, errTotal := wireAmount("AmountTotal", r.AmountTotal, CurrencyUSD)
	if err := cmp.Or(errPaid, errStaking, errTotal); err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		plain
		AmountPaid    Decimal `json:"amount_paid"`
		AmountStaking Decimal `json:"amount_staking"`
		AmountTotal   Decimal `json:"amount_total"`
	}{plain(r), paid, staking, total})
}
