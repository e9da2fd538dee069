package infergate

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mor(t testing.TB, s string) Money {
	t.Helper()
	return Money{Amount: mustDecimal(t, s), Currency: CurrencyMOR}
}

func usd(t testing.TB, s string) Money {
	t.Helper()
	return Money{Amount: mustDecimal(t, s), Currency: CurrencyUSD}
}

// wantCurrencyError checks that err matches ErrCurrencyMismatch, is not taken for a request refused
// before sending, and names both currencies.
func wantCurrencyError(t *testing.T, err error, currencies ...string) {
	t.Helper()
	if !errors.Is(err, ErrCurrencyMismatch) {
		t.Fatalf("err = %v (%T), want one matching ErrCurrencyMismatch", err, err)
	}
	var verr *ValidationError
	if errors.As(err, &verr) {
		t.Errorf("err = %v is a *ValidationError, which says a request was refused before sending", err)
	}
	for _, c := range currencies {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("error %q does not name %s", err, c)
		}
	}
}

func TestMoneyRefusesToMixCurrencies(t *testing.T) {
	t.Parallel()
	dollars, tokens := usd(t, "5"), mor(t, "3")
	if _, err := dollars.Add(tokens); err == nil {
		t.Error("5 USD + 3 MOR was added")
	} else {
		wantCurrencyError(t, err, "USD", "MOR", "exchange rate")
	}
	if _, err := dollars.Sub(tokens); err == nil {
		t.Error("5 USD - 3 MOR was subtracted")
	} else {
		wantCurrencyError(t, err, "USD", "MOR")
	}
	if _, err := tokens.Cmp(dollars); err == nil {
		t.Error("3 MOR and 5 USD were compared")
	} else {
		wantCurrencyError(t, err, "USD", "MOR")
	}
	if _, err := (Money{Amount: mustDecimal(t, "1")}).Add(dollars); err == nil {
		t.Error("an amount with no currency was added to dollars")
	}
	if dollars.Equal(usd(t, "5")) != true || usd(t, "1").Equal(mor(t, "1")) {
		t.Error("Equal must compare amount and currency")
	}
}

func TestMoneyArithmetic(t *testing.T) {
	t.Parallel()
	var total Money // the zero Money takes the currency of what is added to it
	for _, s := range []string{"0.1", "0.2", "0.0000125"} {
		var err error
		if total, err = total.Add(usd(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	if want := usd(t, "0.3000125"); !total.Equal(want) {
		t.Errorf("total = %s, want %s", total, want)
	}
	diff, err := total.Sub(usd(t, "0.3"))
	if err != nil || !diff.Equal(usd(t, "0.0000125")) {
		t.Errorf("Sub = %s, %v", diff, err)
	}
	if c, err := usd(t, "1.50").Cmp(usd(t, "1.5")); c != 0 || err != nil {
		t.Errorf("Cmp(1.50, 1.5) = %d, %v", c, err)
	}
	if c, err := (Money{}).Cmp(mor(t, "-1")); c != 1 || err != nil {
		t.Errorf("Cmp(0, -1 MOR) = %d, %v", c, err)
	}
	if got := mor(t, "0.000125").MulInt(3600); got.String() != "0.45 MOR" {
		t.Errorf("MulInt = %s", got)
	}
	if got := (Money{Amount: mustDecimal(t, "2")}).String(); got != "2" {
		t.Errorf("String with no currency = %q", got)
	}
	if !(Money{Currency: CurrencyMOR}).IsZero() || usd(t, "-2").Sign() != -1 {
		t.Error("IsZero or Sign wrong")
	}
}

// TestMoneyAddProperty checks against int64 arithmetic that Add and Sub are exact and that they
// succeed exactly when the currencies match or one side is the zero Money.
func TestMoneyAddProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	currencies := []Currency{"", CurrencyUSD, CurrencyMOR}
	for range 2000 {
		a, b := rng.Int64N(2e9)-1e9, rng.Int64N(2e9)-1e9
		if rng.IntN(4) == 0 {
			a = 0
		}
		ca, cb := currencies[rng.IntN(3)], currencies[rng.IntN(3)]
		x := Money{Amount: mustDecimal(t, strconv.FormatInt(a, 10)+"e-6"), Currency: ca}
		y := Money{Amount: mustDecimal(t, strconv.FormatInt(b, 10)+"e-6"), Currency: cb}
		compatible := ca == cb || (ca == "" && a == 0) || (cb == "" && b == 0)
		sum, err := x.Add(y)
		if (err == nil) != compatible {
			t.Fatalf("%s + %s: err = %v, compatible %v", x, y, err, compatible)
		}
		if err != nil {
			continue
		}
		want := mustDecimal(t, strconv.FormatInt(a+b, 10)+"e-6")
		if !sum.Amount.Equal(want) {
			t.Fatalf("%s + %s = %s, want %s", x, y, sum, want)
		}
		if back, err := sum.Sub(y); err != nil || !back.Amount.Equal(x.Amount) {
			t.Fatalf("(%s + %s) - %s = %s, %v", x, y, y, back, err)
		}
	}
}

func TestMoneyJSON(t *testing.T) {
	t.Parallel()
	out, err := json.Marshal(mor(t, "0.45"))
	if err != nil || string(out) != `{"amount":"0.45","currency":"MOR"}` {
		t.Fatalf("Marshal = %s, %v", out, err)
	}
	var back Money
	if err := json.Unmarshal(out, &back); err != nil || !back.Equal(mor(t, "0.45")) {
		t.Errorf("Unmarshal = %s, %v", back, err)
	}
}

func TestBidLasts(t *testing.T) {
	t.Parallel()
	bid := RatedBid{PricePerSecond: mor(t, "0.000125")}
	for budget, want := range map[string]time.Duration{
		"1":        8000 * time.Second,
		"0.000249": time.Second, // floor, never a second the budget does not cover
		"0":        0,
		"-5":       0,
		"1e300":    math.MaxInt64,
	} {
		if got, err := bid.Lasts(mor(t, budget)); got != want || err != nil {
			t.Errorf("Lasts(%s) = %v, %v; want %v", budget, got, err, want)
		}
	}
	if got, err := (RatedBid{PricePerSecond: Money{Currency: CurrencyMOR}}).Lasts(mor(t, "1")); got != math.MaxInt64 || err != nil {
		t.Errorf("a free bid lasts %v, %v", got, err)
	}
}

// TestBidLastsRefusesTheBalance is the trap the SDK's own documentation used to set: a balance is
// in dollars, a bid's price in MOR per second, and their quotient means nothing.
func TestBidLastsRefusesTheBalance(t *testing.T) {
	t.Parallel()
	var bids struct{ Bids []RatedBid }
	if err := json.Unmarshal([]byte(deployedBids), &bids); err != nil {
		t.Fatal(err)
	}
	var balance Balance
	if err := json.Unmarshal([]byte(`{"total_available":"32.375","currency":"USD"}`), &balance); err != nil {
		t.Fatal(err)
	}
	d, err := bids.Bids[0].Lasts(balance.TotalAvailable)
	if d != 0 {
		t.Errorf("Lasts(a USD balance) = %v", d)
	}
	wantCurrencyError(t, err, "USD", "MOR", "exchange rate")
	if _, err := bids.Bids[0].Lasts(Money{Amount: mustDecimal(t, "1")}); err == nil {
		t.Error("a budget with no currency was taken as MOR")
	} else {
		wantCurrencyError(t, err, "no currency", "MOR")
	}
}

func TestBidCostIsInTheBidsCurrency(t *testing.T) {
	t.Parallel()
	var bid RatedBid
	if err := json.Unmarshal([]byte(`{"bid_id":"0x1","price_per_second":"0.000125"}`), &bid); err != nil {
		t.Fatal(err)
	}
	if got, want := bid.Cost(time.Hour), mor(t, "0.45"); !got.Equal(want) {
		t.Errorf("Cost = %s, want %s", got, want)
	}
}

func TestBalanceJSONKeepsTheWireShape(t *testing.T) {
	t.Parallel()
	wire := `{"paid":{"posted_balance":"25","pending_holds":"-0.125","available":"24.875"},` +
		`"staking":{"daily_amount":"10","refresh_date":"2025-10-15","available":"7.5"},` +
		`"total_available":"32.375","is_staker":true,"allow_overage":false,"currency":"USD"}`
	var b Balance
	if err := json.Unmarshal([]byte(wire), &b); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != wire {
		t.Errorf("round trip changed the shape:\n got %s\nwant %s", out, wire)
	}
	var other Balance
	if err := json.Unmarshal([]byte(`{"total_available":"3","currency":"EUR","staking":{"refresh_date":"2025-10-15T06:00:00Z"}}`), &other); err != nil {
		t.Fatal(err)
	}
	if want := (Money{Amount: mustDecimal(t, "3"), Currency: "EUR"}); !other.TotalAvailable.Equal(want) || !other.Paid.Available.Equal(Money{Currency: "EUR"}) {
		t.Errorf("amounts are not in the balance's currency: %+v", other)
	}
	out, err = json.Marshal(other)
	if err != nil || !strings.Contains(string(out), `"refresh_date":"2025-10-15T06:00:00Z"`) || !strings.Contains(string(out), `"currency":"EUR"`) {
		t.Errorf("Marshal = %s, %v", out, err)
	}
	b.Staking.Available = mor(t, "1")
	if _, err := json.Marshal(b); err == nil {
		t.Error("a MOR amount was written into a USD balance")
	}
}

func TestUsageRecordJSONKeepsTheWireShape(t *testing.T) {
	t.Parallel()
	rec := UsageRecord{ID: "u1", CreatedAt: time.Date(2025, 10, 15, 12, 0, 0, 0, time.UTC), ModelName: "m",
		AmountPaid: usd(t, "0"), AmountStaking: usd(t, "0.0012"), AmountTotal: usd(t, "0.0012")}
	out, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"amount_paid":"0"`, `"amount_staking":"0.0012"`, `"amount_total":"0.0012"`, `"created_at":"2025-10-15T12:00:00Z"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s lacks %s", out, want)
		}
	}
	var back UsageRecord
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	rec.AmountTotal = mor(t, "1")
	if _, err := json.Marshal(rec); err == nil {
		t.Error("a MOR amount was written as a usage cost")
	}
}

func TestRatedBidMarshalRefusesAnotherCurrency(t *testing.T) {
	t.Parallel()
	if _, err := json.Marshal(RatedBid{ID: "0x1", PricePerSecond: usd(t, "1")}); err == nil {
		t.Error("a USD price was written where the wire carries MOR")
	}
	out, err := json.Marshal(RatedBid{ID: "0x1", PricePerSecond: mor(t, "0.000125")})
	if err != nil || !strings.Contains(string(out), `"price_per_second":"0.000125"`) {
		t.Errorf("Marshal = %s, %v", out, err)
	}
}

// FuzzMoneyDecode checks that any balance, usage record or bid the server sends decodes without
// panic, every amount in the currency its route implies, and that what decodes writes back in the
// wire's shape and reads back the same.
func FuzzMoneyDecode(f *testing.F) {
	for _, seed := range []string{
		`{"paid":{"posted_balance":"25","pending_holds":"-0.125","available":"24.875"},"staking":{"daily_amount":10,"refresh_date":"2025-10-15","available":"7.5"},"total_available":"32.375","currency":"USD"}`,
		`{"total_available":"1e-1000","currency":""}`, `{"staking":{"refresh_date":null}}`, `{"currency":"EUR","paid":{"available":1}}`,
		`{"id":"u","created_at":"2025-10-15T12:34:56","amount_paid":"0","amount_staking":0.5,"amount_total":null}`,
		`{"bid_id":"0x1","price_per_second":"0.000125","rating":4.5}`, `{"Bid":{"Id":"0x1","PricePerSecond":"125000000000000"},"Score":0.7}`,
		`null`, `[]`, `{"price_per_second":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var b Balance
		if json.Unmarshal(raw, &b) == nil {
			for _, m := range []Money{b.Paid.PostedBalance, b.Paid.PendingHolds, b.Paid.Available, b.Staking.DailyAmount, b.Staking.Available, b.TotalAvailable} {
				if m.Currency != b.Currency || b.Currency == "" {
					t.Fatalf("%s: an amount in %q, the balance in %q", raw, m.Currency, b.Currency)
				}
			}
			roundTrip(t, b)
		}
		var r UsageRecord
		if json.Unmarshal(raw, &r) == nil {
			if r.AmountTotal.Currency != CurrencyUSD {
				t.Fatalf("%s: usage cost in %q", raw, r.AmountTotal.Currency)
			}
			roundTrip(t, r)
		}
		var bid RatedBid
		if json.Unmarshal(raw, &bid) == nil && bid.PricePerSecond.Currency != CurrencyMOR {
			t.Fatalf("%s: price in %q", raw, bid.PricePerSecond.Currency)
		}
	})
}

// roundTrip checks that v, once written as JSON, reads back equal.
func roundTrip[T any](t *testing.T, v T) {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("Marshal(%+v): %v", v, err)
	}
	var back T
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("%s does not read back: %v", out, err)
	}
	if diff := cmp.Diff(v, back); diff != "" {
		t.Fatalf("%s reads back different (-want +got):\n%s", out, diff)
	}
}
