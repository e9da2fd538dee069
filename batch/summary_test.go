package batch_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/batch"
)

// TestCostIsSummedInOneCurrency answers with models priced in USD and in MOR: the cost sums the
// USD answers, the first priced, and the MOR answer and the unpriced one count in Unpriced.
func TestCostIsSummedInOneCurrency(t *testing.T) {
	t.Parallel()
	price := func(id, amount string, currency infergate.Currency) infergate.Model {
		d, err := infergate.ParseDecimal(amount)
		if err != nil {
			t.Fatal(err)
		}
		m := infergate.Money{Amount: d, Currency: currency}
		return infergate.Model{ID: id, Prices: &infergate.ModelPrices{Input: m, Output: m}}
	}
	line := func(id, model string) string {
		return fmt.Sprintf(`{"custom_id":%q,"method":"POST","url":"/v1/chat/completions","body":{"model":%q,"messages":[{"role":"user","content":%q}]}}`, id, model, id)
	}
	in, out := files(t, line("a", "usd-model"), line("b", "mor-model"), line("c", "usd-model"), line("d", "unknown-model"))
	sum, err := batch.Run(context.Background(), serve(t, &fake{}), batch.Job{Input: in, Output: out, Concurrency: 1,
		Options: []infergate.Option{infergate.WithModelFacts(price("usd-model", "1000000", infergate.CurrencyUSD), price("mor-model", "1000000", infergate.CurrencyMOR))}})
	if err != nil {
		t.Fatal(err)
	}
	// Each answer used 2 prompt and 3 completion tokens, at 1 a token.
	if sum.Cost == nil || sum.Cost.Currency != infergate.CurrencyUSD || sum.Cost.Amount.String() != "10" || sum.Unpriced != 2 {
		t.Errorf("cost %v, unpriced %d", sum.Cost, sum.Unpriced)
	}
	if sum.Usage.TotalTokens != 20 {
		t.Errorf("usage %+v", sum.Usage)
	}
}

// TestNoAnswerIsAnError sends to a gateway that is gone: each request's result is an Error, a
// failure that RetryFailed sends again.
func TestNoAnswerIsAnError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(url), infergate.WithAPIKey("sk-test"), infergate.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	in, out := files(t, chatLines(ids(3))...)
	sum, err := batch.Run(context.Background(), client, batch.Job{Input: in, Output: out})
	if err != nil || sum.Failed != 3 {
		t.Fatalf("%+v, %v", sum, err)
	}
	for id, r := range byID(t, results(t, out)) {
		if r.Response != nil || r.Error == nil || r.Error.Code != "transport_error" || !strings.Contains(r.Error.Message, "POST") {
			t.Errorf("%s: %+v", id, r.Error)
		}
	}
}
