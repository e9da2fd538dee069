package infergate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"time"
)

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
