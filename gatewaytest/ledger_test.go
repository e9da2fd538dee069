package gatewaytest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

func TestTransactionsReadDatetimesAsTheGatewayDoes(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s.AddLedger(gatewaytest.LedgerEntry{ID: "noon", Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryPurchase,
		AmountTotal: "10", CreatedAt: at},
		gatewaytest.LedgerEntry{ID: "micro", Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryPurchase,
			AmountTotal: "10", CreatedAt: at.Add(1500 * time.Nanosecond)})
	for query, want := range map[string]int{
		"from=2026-07-01":                         2, // a date is its midnight
		"to=2026-07-01":                           0,
		"from=2026-07-01T12:00:00":                2, // naive is UTC
		"from=2026-07-01T14:00:00%2B02:00":        2,
		"from=2026-07-01T12:00:00.000002Z":        0, // the rows are kept to the microsecond
		"to=2026-07-01T12:00:00.000001Z":          2, // inclusive
		"from=1782907200&to=1782907200":           1, // Unix seconds
		"entry_type=purchase&type=refund&limit=1": 2, // type= is not the filter; total counts every page
	} {
		resp, body := send(t, s, "GET", "/billing/transactions?"+query, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", query, resp.StatusCode, body)
		}
		if got := decode(t, body)["total"]; got != float64(want) {
			t.Errorf("%s: total %v, want %d", query, got, want)
		}
	}
	resp, body := send(t, s, "GET", "/billing/transactions?limit=1", nil)
	jsonEqual(t, body, `{"items":[{"id":"micro","user_id":1,"currency":"USD","status":"posted","entry_type":"purchase",
		"amount_paid":"0","amount_staking":"0","amount_total":"10","idempotency_key":null,"related_entry_id":null,
		"payment_source":null,"external_transaction_id":null,"payment_metadata":null,"request_id":null,"api_key_id":null,
		"model_name":null,"model_id":null,"endpoint":null,"tokens_input":0,"tokens_output":0,"tokens_total":0,
		"input_price_per_million":null,"output_price_per_million":null,"failure_code":null,"failure_reason":null,
		"description":null,"created_at":"2026-07-01T12:00:00.000001","updated_at":"2026-07-01T12:00:00.000001"}],
		"total":2,"limit":1,"offset":0,"has_more":true}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	for _, query := range []string{"entry_type=cashback", "from=yesterday", "limit=0", "offset=-1"} {
		if resp, body := send(t, s, "GET", "/billing/transactions?"+query, nil); resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s, want 422", query, resp.StatusCode, body)
		}
	}
}

func TestSpendingListsTwelveMonths(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	s.AddLedger(gatewaytest.LedgerEntry{Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryUsageCharge,
		AmountTotal: "-0.10", CreatedAt: time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)},
		gatewaytest.LedgerEntry{Status: gatewaytest.StatusPending, EntryType: gatewaytest.EntryUsageHold,
			AmountTotal: "-5", CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	_, body := send(t, s, "GET", "/billing/spending?year=2026", nil)
	m := decode(t, body)
	months, _ := m["months"].([]any)
	if len(months) != 12 || m["total"] != "-0.1" || m["mode"] != "gross" || m["currency"] != "USD" {
		t.Fatalf("spending %s", body)
	}
	if dec := months[11].(map[string]any); dec["amount"] != "-0.1" || dec["transaction_count"] != float64(1) {
		t.Errorf("December %v", dec)
	}
	if jan := months[0].(map[string]any); jan["amount"] != "0" || jan["month"] != float64(1) {
		t.Errorf("January %v", jan)
	}
	if resp, _ := send(t, s, "GET", "/billing/spending?mode=Net", nil); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("mode=Net: %d, want 422", resp.StatusCode)
	}
}
