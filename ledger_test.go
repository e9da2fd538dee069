package infergate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func mustDecimal(t testing.TB, s string) infergate.Decimal {
	t.Helper()
	d, err := infergate.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func dollars(t testing.TB, s string) infergate.Money {
	return infergate.Money{Amount: mustDecimal(t, s), Currency: infergate.CurrencyUSD}
}

func listLedger(t *testing.T, c *infergate.Client, f infergate.TransactionFilter) []infergate.LedgerEntry {
	t.Helper()
	var out []infergate.LedgerEntry
	for e, err := range c.Billing.Transactions(t.Context(), f) {
		if err != nil {
			t.Fatalf("Transactions(%+v): %v", f, err)
		}
		out = append(out, e)
	}
	return out
}

func entryIDs(entries []infergate.LedgerEntry) []string {
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	return ids
}

// ledgerQueries returns the query strings of the transaction requests the fake saw.
func ledgerQueries(gw *gatewaytest.Server) []string {
	var out []string
	for _, r := range gw.Requests() {
		if r.Path == "/api/v1/billing/transactions" {
			out = append(out, r.RawQuery)
		}
	}
	return out
}

func TestTransactionsPageThroughTheLedgerNewestFirst(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	base := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("e%d", i)
		gw.AddLedger(gatewaytest.LedgerEntry{ID: id, Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryPurchase,
			AmountPaid: "10", AmountTotal: "10", CreatedAt: base.Add(time.Duration(i) * time.Minute)})
		want = append([]string{id}, want...)
	}
	got := listLedger(t, gw.Client(), infergate.TransactionFilter{PageSize: 3})
	if diff := cmp.Diff(want, entryIDs(got)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	wantQueries := []string{"limit=3&offset=0", "limit=3&offset=3", "limit=3&offset=6"}
	if diff := cmp.Diff(wantQueries, ledgerQueries(gw)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestTransactionsFilterByTypeAndInclusiveTimes(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	at := time.Date(2026, 7, 1, 12, 0, 0, 123456000, time.UTC)
	gw.AddLedger(
		gatewaytest.LedgerEntry{ID: "before", Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryUsageCharge, CreatedAt: at.Add(-time.Microsecond)},
		gatewaytest.LedgerEntry{ID: "first", Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryUsageCharge, CreatedAt: at},
		gatewaytest.LedgerEntry{ID: "refund", Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryRefund, CreatedAt: at.Add(time.Second)},
		gatewaytest.LedgerEntry{ID: "last", Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryUsageCharge, CreatedAt: at.Add(time.Hour)},
		gatewaytest.LedgerEntry{ID: "after", Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryUsageCharge, CreatedAt: at.Add(time.Hour + time.Microsecond)},
	)
	c := gw.Client()
	// Bounds between two microseconds keep the same entries as the microseconds they round to.
	paris := time.FixedZone("CEST", 2*3600)
	for _, f := range []infergate.TransactionFilter{
		{Type: infergate.EntryTypeUsageCharge, From: at, To: at.Add(time.Hour)},
		{Type: infergate.EntryTypeUsageCharge, From: at.Add(-time.Microsecond + 1), To: at.Add(time.Hour + time.Microsecond - 1)},
		{Type: infergate.EntryTypeUsageCharge, From: at.In(paris), To: at.Add(time.Hour).In(paris)},
	} {
		if diff := cmp.Diff([]string{"last", "first"}, entryIDs(listLedger(t, c, f))); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", f, diff)
		}
	}
	if got := entryIDs(listLedger(t, c, infergate.TransactionFilter{Type: infergate.EntryTypeRefund})); !slices.Equal(got, []string{"refund"}) {
		t.Errorf("refunds = %v", got)
	}
	queries := ledgerQueries(gw)
	if want := "entry_type=usage_charge&from=2026-07-01T12%3A00%3A00.123456Z&limit=100&offset=0&to=2026-07-01T13%3A00%3A00.123456Z"; queries[0] != want {
		t.Errorf("query %q, want %q", queries[0], want)
	}
}

func TestTransactionsRefuseBadFiltersBeforeSending(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	c := gw.Client()
	now := time.Now()
	for name, f := range map[string]infergate.TransactionFilter{
		"PageSize": {PageSize: -1},
		"To":       {From: now, To: now.Add(-time.Second)},
		"Type":     {Type: "Usage-Charge"},
	} {
		for _, err := range c.Billing.Transactions(t.Context(), f) {
			var v *infergate.ValidationError
			if !errors.As(err, &v) || v.Field != name {
				t.Errorf("%s: error %v, want a *ValidationError on %s", name, err, name)
			}
		}
	}
	for _, err := range c.Billing.Transactions(t.Context(), infergate.TransactionFilter{Type: "Usage-Charge"}) {
		if !strings.Contains(err.Error(), `"usage_charge"`) {
			t.Errorf("the error %q does not name the type meant", err)
		}
	}
	if got := gw.Requests(); len(got) != 0 {
		t.Errorf("the fake saw %d requests", len(got))
	}
	// A type in the gateway's spelling that the SDK does not know is the gateway's to judge.
	for _, err := range c.Billing.Transactions(t.Context(), infergate.TransactionFilter{Type: "cashback"}) {
		var apiErr *infergate.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 {
			t.Errorf("an unknown type: %v, want the gateway's 422", err)
		}
	}
}

func TestTransactionsChargeEachCallTheFakeAnswers(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "four words of answer",
		Usage: &gatewaytest.Usage{PromptTokens: 1200, CompletionTokens: 34, TotalTokens: 1234}}))
	c := gw.Client()
	ctx := t.Context()
	var info infergate.ResponseInfo
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("hi")}}
	if _, err := c.Chat.Create(ctx, req, infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	gw.SetModelDown("llama-3.3-70b", gatewaytest.OutageProviderError)
	if _, err := c.Chat.Create(ctx, req, infergate.WithMaxRetries(0)); err == nil {
		t.Fatal("a call to a model down succeeded")
	}
	got := listLedger(t, c, infergate.TransactionFilter{})
	if len(got) != 2 {
		t.Fatalf("ledger = %+v, want the charge and the voided hold", got)
	}
	hold, charge := got[0], got[1]
	if hold.Type != infergate.EntryTypeUsageHold || hold.Status != infergate.EntryStatusVoided || hold.FailureCode != "502" ||
		hold.FailureReason == "" || !hold.AmountTotal.IsZero() {
		t.Errorf("the failed call's entry: %+v", hold)
	}
	want := infergate.LedgerEntry{ID: charge.ID, UserID: 1, Status: infergate.EntryStatusPosted, Type: infergate.EntryTypeUsageCharge,
		Currency: infergate.CurrencyUSD, AmountPaid: dollars(t, "0"), AmountStaking: dollars(t, "-0.001234"),
		AmountTotal: dollars(t, "-0.001234"), RequestID: info.RequestID, ModelName: "llama-3.3-70b",
		ModelBlockchainID: gatewaytest.HexID("llama-3.3-70b"), Endpoint: "/v1/chat/completions",
		InputTokens: 1200, OutputTokens: 34, TotalTokens: 1234,
		Prices:    &infergate.ModelPrices{Input: dollars(t, "1"), Output: dollars(t, "1")},
		CreatedAt: charge.CreatedAt, UpdatedAt: charge.CreatedAt}
	if diff := cmp.Diff(want, charge); diff != "" {
		t.Errorf("the call's charge (-want +got):\n%s", diff)
	}
	// The charge is the usage record's debit: the cost from the token counts and prices, exactly.
	cost := charge.Prices.Input.Amount.MulInt(int64(charge.InputTokens)).Add(charge.Prices.Output.Amount.MulInt(int64(charge.OutputTokens)))
	cost, _ = cost.Div(mustDecimal(t, "1000000"), 12)
	if !cost.Equal(charge.AmountTotal.Amount.Mul(mustDecimal(t, "-1"))) {
		t.Errorf("tokens × prices = %s, charged %s", cost, charge.AmountTotal)
	}
	usage := gw.Usage()
	if len(usage) != 1 || usage[0].ID != charge.ID || usage[0].AmountTotal != "0.001234" {
		t.Errorf("usage records %+v, want the charge's", usage)
	}
}

func TestTransactionEntryDecodesEveryField(t *testing.T) {
	t.Parallel()
	body := `{"id":"5f0c","user_id":7,"currency":"USD","status":"posted","entry_type":"purchase",
		"amount_paid":"10.00000001","amount_staking":"0","amount_total":"10.00000001","idempotency_key":"k1",
		"related_entry_id":null,"payment_source":"stripe","external_transaction_id":"pi_1",
		"payment_metadata":{ "card" : "visa" },"request_id":null,"api_key_id":null,"model_name":null,"model_id":null,
		"endpoint":null,"tokens_input":null,"tokens_output":null,"tokens_total":null,
		"input_price_per_million":"0.70","output_price_per_million":null,"failure_code":null,"failure_reason":null,
		"description":"top-up","created_at":"2026-07-01T12:00:00.123456","updated_at":"2026-07-01T14:00:00+02:00",
		"invoice":{"n":1},"gone":null}`
	var e infergate.LedgerEntry
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	want := infergate.LedgerEntry{ID: "5f0c", UserID: 7, Status: infergate.EntryStatusPosted, Type: infergate.EntryTypePurchase,
		Currency: infergate.CurrencyUSD, AmountPaid: dollars(t, "10.00000001"), AmountStaking: dollars(t, "0"),
		AmountTotal: dollars(t, "10.00000001"), Prices: &infergate.ModelPrices{Input: dollars(t, "0.7"), Output: dollars(t, "0")},
		Description: "top-up", IdempotencyKey: "k1", PaymentSource: "stripe", ExternalTransactionID: "pi_1",
		PaymentMetadata: json.RawMessage(`{"card":"visa"}`),
		CreatedAt:       time.Date(2026, 7, 1, 12, 0, 0, 123456000, time.UTC), UpdatedAt: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC),
		Extra: infergate.RawFields{"invoice": json.RawMessage(`{"n":1}`)}}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	if e.CreatedAt.Location() != time.UTC || e.UpdatedAt.Location() != time.UTC {
		t.Errorf("times in %v and %v, want UTC", e.CreatedAt.Location(), e.UpdatedAt.Location())
	}
	if got := e.AmountTotal.Amount.String(); got != "10.00000001" {
		t.Errorf("amount %s, want the decimal string exactly", got)
	}
	out, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var again infergate.LedgerEntry
	if err := json.Unmarshal(out, &again); err != nil || !cmp.Equal(e, again) {
		t.Errorf("round trip through %s: %v\n%s", out, err, cmp.Diff(e, again))
	}
	e.AmountPaid = infergate.Money{Amount: mustDecimal(t, "1"), Currency: infergate.CurrencyMOR}
	if _, err := json.Marshal(e); err == nil {
		t.Error("a MOR amount was written as the entry's USD")
	}
}

// spendingOf sums the posted entries of types in year, by month, as the gateway's summary does.
func spendingOf(t *testing.T, entries []infergate.LedgerEntry, year int, types ...infergate.EntryType) (months [12]infergate.Money, total infergate.Money) {
	for _, e := range entries {
		if e.Status != infergate.EntryStatusPosted || !slices.Contains(types, e.Type) || e.CreatedAt.Year() != year {
			continue
		}
		m := e.CreatedAt.Month() - 1
		var err error
		if months[m], err = months[m].Add(e.AmountTotal); err != nil {
			t.Fatal(err)
		}
		if total, err = total.Add(e.AmountTotal); err != nil {
			t.Fatal(err)
		}
	}
	return months, total
}

func TestSpendingGrossAndNetSumTheLedger(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	rng := rand.New(rand.NewPCG(1, 2))
	statuses := []string{gatewaytest.StatusPosted, gatewaytest.StatusPosted, gatewaytest.StatusPending, gatewaytest.StatusVoided}
	types := []string{gatewaytest.EntryUsageCharge, gatewaytest.EntryUsageCharge, gatewaytest.EntryRefund, gatewaytest.EntryPurchase}
	for range 60 {
		at := time.Date(2025+rng.IntN(3), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), 0, 0, 0, time.UTC)
		amount := fmt.Sprintf("%d.%08d", rng.IntN(3), rng.IntN(1e8))
		typ := types[rng.IntN(len(types))]
		if typ == gatewaytest.EntryUsageCharge {
			amount = "-" + amount
		}
		gw.AddLedger(gatewaytest.LedgerEntry{Status: statuses[rng.IntN(len(statuses))], EntryType: typ, AmountTotal: amount, CreatedAt: at})
	}
	c := gw.Client()
	entries := listLedger(t, c, infergate.TransactionFilter{})
	for _, tc := range []struct {
		mode  infergate.SpendingMode
		types []infergate.EntryType
	}{
		{"", []infergate.EntryType{infergate.EntryTypeUsageCharge}},
		{infergate.SpendingGross, []infergate.EntryType{infergate.EntryTypeUsageCharge}},
		{infergate.SpendingNet, []infergate.EntryType{infergate.EntryTypeUsageCharge, infergate.EntryTypeRefund}},
	} {
		got, err := c.Billing.Spending(t.Context(), 2026, tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		months, total := spendingOf(t, entries, 2026, tc.types...)
		if got.Year != 2026 || (got.Mode != tc.mode && tc.mode != "") || got.Mode == "" || got.Currency != infergate.CurrencyUSD ||
			len(got.Months) != 12 || !got.Total.Amount.Equal(total.Amount) || got.Total.Currency != infergate.CurrencyUSD {
			t.Fatalf("%q: %+v, want the total %s over 12 months", tc.mode, got, total)
		}
		for i, m := range got.Months {
			if m.Year != 2026 || m.Month != time.Month(i+1) || !m.Amount.Amount.Equal(months[i].Amount) {
				t.Errorf("%q month %d: %+v, want %s", tc.mode, i+1, m, months[i])
			}
		}
	}
	if _, err := c.Billing.Spending(t.Context(), 0, infergate.SpendingNet); err != nil {
		t.Errorf("this year's spending: %v", err)
	}
	if q := gw.Requests()[len(gw.Requests())-1].RawQuery; q != "mode=net" {
		t.Errorf("query %q: the current year is the gateway's to choose", q)
	}
}

func TestSpendingRefusesBadInputBeforeSending(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	c := gw.Client()
	for field, call := range map[string]func() error{
		"Year": func() error { _, err := c.Billing.Spending(t.Context(), -1, ""); return err },
		"Mode": func() error { _, err := c.Billing.Spending(t.Context(), 2026, "Net"); return err },
	} {
		var v *infergate.ValidationError
		if err := call(); !errors.As(err, &v) || v.Field != field {
			t.Errorf("%s: %v, want a *ValidationError", field, err)
		}
	}
	if n := len(gw.Requests()); n != 0 {
		t.Errorf("the fake saw %d requests", n)
	}
}

func TestSpendingRoundTripsItsJSON(t *testing.T) {
	t.Parallel()
	body := `{"year":2026,"mode":"net","months":[{"year":2026,"month":1,"amount":"-0.001234","transaction_count":3}],"total":"-0.001234","currency":"USD"}`
	var s infergate.Spending
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if s.Months[0].Amount.String() != "-0.001234 USD" || s.Months[0].Transactions != 3 || s.Months[0].Month != time.January {
		t.Errorf("month %+v", s.Months[0])
	}
	out, err := json.Marshal(s)
	if err != nil || string(out) != body {
		t.Errorf("written back as %s, %v; want %s", out, err, body)
	}
}

// TestTransactionsListWhatTheRowsFilterTo lists random ledgers with random filters and page sizes,
// and checks that the listing is the rows filtered and ordered directly.
func TestTransactionsListWhatTheRowsFilterTo(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	types := []infergate.EntryType{infergate.EntryTypePurchase, infergate.EntryTypeStakingRefresh, infergate.EntryTypeUsageHold,
		infergate.EntryTypeUsageCharge, infergate.EntryTypeRefund, infergate.EntryTypeAdjustment}
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	instant := func() time.Time { return base.Add(time.Duration(rng.Int64N(int64(10 * time.Second)))) }
	for round := range 40 {
		gw := gatewaytest.New(t)
		for range rng.IntN(30) {
			gw.AddLedger(gatewaytest.LedgerEntry{Status: gatewaytest.StatusPosted, EntryType: string(types[rng.IntN(len(types))]),
				AmountTotal: fmt.Sprintf("-0.%06d", rng.IntN(1e6)), CreatedAt: instant()})
		}
		var f infergate.TransactionFilter
		if rng.IntN(2) == 0 {
			f.Type = types[rng.IntN(len(types))]
		}
		// A bound is often a row's own time, or a nanosecond to a microsecond beside it.
		bound := func() time.Time {
			rows := gw.Ledger()
			if len(rows) == 0 || rng.IntN(2) == 0 {
				return instant()
			}
			return rows[rng.IntN(len(rows))].CreatedAt.Add(time.Duration(rng.Int64N(2001) - 1000))
		}
		if rng.IntN(2) == 0 {
			f.From = bound()
		}
		if rng.IntN(2) == 0 {
			f.To = bound()
		}
		if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
			f.From, f.To = f.To, f.From
		}
		f.PageSize = rng.IntN(6)
		var want []string
		rows := gw.Ledger()
		for i := len(rows) - 1; i >= 0; i-- {
			e := rows[i]
			if (f.Type == "" || e.EntryType == string(f.Type)) && (f.From.IsZero() || !e.CreatedAt.Before(f.From)) &&
				(f.To.IsZero() || !e.CreatedAt.After(f.To)) {
				want = append(want, e.ID)
			}
		}
		slices.SortStableFunc(want, func(a, b string) int {
			return byID(rows, b).CreatedAt.Compare(byID(rows, a).CreatedAt)
		})
		got := listLedger(t, gw.Client(), f)
		if diff := cmp.Diff(want, entryIDs(got)); diff != "" {
			t.Fatalf("round %d, filter %+v (-want +got):\n%s", round, f, diff)
		}
	}
}

func byID(rows []gatewaytest.LedgerEntry, id string) gatewaytest.LedgerEntry {
	for _, e := range rows {
		if e.ID == id {
			return e
		}
	}
	return gatewaytest.LedgerEntry{}
}

// equalJSON compares JSON texts as the values they write, numbers as their text.
var equalJSON = cmp.Comparer(func(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	value := func(b []byte) (v any, err error) {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		err = dec.Decode(&v)
		return v, err
	}
	va, errA := value(a)
	vb, errB := value(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
})

func FuzzLedgerEntryDecode(f *testing.F) {
	f.Add([]byte(`{"id":"a","currency":"USD","status":"posted","entry_type":"usage_charge","amount_paid":"-0.001234","amount_staking":"0","amount_total":"-0.001234","input_price_per_million":"0.7","output_price_per_million":"2.8","created_at":"2026-07-01T12:00:00.123456","updated_at":"2026-07-01T12:00:00"}`))
	f.Add([]byte(`{"id":"b","entry_type":"usage_hold","status":"voided","failure_code":"502","payment_metadata":{"a":[1, 2]},"x":{"y":null},"ID":"c"}`))
	f.Add([]byte(`{"created_at":"9999-12-31T23:00:00-01:00"}`))
	f.Add([]byte(`{"amount_total":1e-8,"tokens_input":null,"":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var e infergate.LedgerEntry
		if json.Unmarshal(b, &e) != nil {
			return
		}
		out, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s decoded to %+v, which does not encode: %v", b, e, err)
		}
		var again infergate.LedgerEntry
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("%s encoded as %s, which does not decode: %v", b, out, err)
		}
		// json.Marshal compacts what MarshalJSON writes and escapes its HTML characters, so Extra's
		// values come back as the same JSON, not always the same bytes.
		if diff := cmp.Diff(e, again, equalJSON); diff != "" {
			t.Fatalf("%s → %s changed (-first +second):\n%s", b, out, diff)
		}
	})
}
