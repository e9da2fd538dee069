package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func usd(s string) infergate.Money {
	return infergate.Money{Amount: dec(s), Currency: infergate.CurrencyUSD}
}

func dec(s string) infergate.Decimal {
	d, err := infergate.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Cost is the gateway's formula in exact arithmetic: checked against big.Rat on random token
// counts, negative ones included, and random decimal prices.
func TestModelPricesCostIsExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(45, 4))
	count := func() int {
		switch rng.IntN(8) {
		case 0:
			return -rng.IntN(1000) // counts as 0
		case 1:
			return rng.IntN(1 << 40)
		}
		return rng.IntN(2_000_000)
	}
	price := func() string {
		scale := rng.IntN(12)
		text := strconv.FormatInt(rng.Int64N(1_000_000_000), 10)
		if scale >= len(text) {
			text = strings.Repeat("0", scale-len(text)+1) + text
		}
		return text[:len(text)-scale] + "." + text[len(text)-scale:] + "0"
	}
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("%q is no number", s)
		}
		return r
	}
	for range 2000 {
		in, out := price(), price()
		u := infergate.Usage{PromptTokens: count(), CompletionTokens: count(), TotalTokens: count()}
		prices := infergate.ModelPrices{Input: usd(in), Output: usd(out)}
		got := prices.Cost(u)

		want := new(big.Rat).Mul(rat(in), big.NewRat(int64(max(u.PromptTokens, 0)), 1_000_000))
		want.Add(want, new(big.Rat).Mul(rat(out), big.NewRat(int64(max(u.CompletionTokens, 0)), 1_000_000)))
		if got.Amount.Rat().Cmp(want) != 0 || got.Currency != infergate.CurrencyUSD {
			t.Fatalf("%+v at %s / %s: Cost = %s, want %s USD", u, in, out, got, want.FloatString(30))
		}
	}
}

func TestModelPricesCost(t *testing.T) {
	t.Parallel()
	u := infergate.Usage{PromptTokens: 1234, CompletionTokens: 567}
	for _, tc := range []struct {
		name   string
		prices infergate.ModelPrices
		want   infergate.Money
	}{
		{"the docs' model", infergate.ModelPrices{Input: usd("0.70"), Output: usd("2.50")}, usd("0.0022813")},
		{"a free input", infergate.ModelPrices{Output: usd("2.50")}, usd("0.0014175")},
		{"in MOR", infergate.ModelPrices{Input: infergate.Money{Amount: dec("1"), Currency: infergate.CurrencyMOR},
			Output: infergate.Money{Amount: dec("1"), Currency: infergate.CurrencyMOR}},
			infergate.Money{Amount: dec("0.001801"), Currency: infergate.CurrencyMOR}},
		{"two currencies", infergate.ModelPrices{Input: usd("0.70"), Output: infergate.Money{Amount: dec("2.5"), Currency: infergate.CurrencyMOR}},
			infergate.Money{}},
	} {
		if got := tc.prices.Cost(u); !got.Equal(tc.want) {
			t.Errorf("%s: Cost = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// priceGateway is a fake gateway whose catalogue prices "cheap" at 0.15 / 0.60 USD and "dear" at
// 1.60 / 3.50 per million tokens; "house-x" has no prices, there or in the SDK's table.
func priceGateway(t *testing.T, opts ...gatewaytest.ServerOption) *gatewaytest.Server {
	t.Helper()
	models := gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "cheap", InputPricePerMillion: "0.15", OutputPricePerMillion: "0.60"},
		gatewaytest.CatalogModel{ID: "dear", InputPricePerMillion: "1.60", OutputPricePerMillion: "3.50"},
		gatewaytest.CatalogModel{ID: "house-x"},
		gatewaytest.CatalogModel{ID: "llama-3.3-70b"},
	)
	return gatewaytest.New(t, append([]gatewaytest.ServerOption{models}, opts...)...)
}

func modelRequests(gw *gatewaytest.Server) int {
	n := 0
	for _, r := range gw.Requests() {
		if strings.HasSuffix(r.Path, "/models") {
			n++
		}
	}
	return n
}

// callCost makes one Create or Stream call, read to its end, and returns its ResponseInfo.Cost.
func callCost(t *testing.T, c *infergate.Client, stream bool, model string, opts ...infergate.Option) *infergate.Money {
	t.Helper()
	var info infergate.ResponseInfo
	req := infergate.ChatRequest{Model: model, Messages: []infergate.Message{infergate.UserMessage("hi")}}
	opts = append(opts, infergate.WithResponseInfo(&info))
	if !stream {
		if _, err := c.Chat.Create(context.Background(), req, opts...); err != nil {
			t.Fatal(err)
		}
		return info.Cost
	}
	s, err := c.Chat.Stream(context.Background(), req, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if info.Cost != nil {
		t.Errorf("a stream's cost before its end: %s", info.Cost)
	}
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return info.Cost
}

func TestResponseInfoCost(t *testing.T) {
	t.Parallel()
	usage := &gatewaytest.Usage{PromptTokens: 1000, CompletionTokens: 200, TotalTokens: 1200}
	mixed := infergate.Model{ID: "house-x", Prices: &infergate.ModelPrices{Input: usd("1"),
		Output: infergate.Money{Amount: dec("1"), Currency: infergate.CurrencyMOR}}}
	for _, tc := range []struct {
		name   string
		model  string
		cached bool // the catalogue is read (and cached) before the call
		opts   []infergate.Option
		want   *infergate.Money
	}{
		{"the route's prices", "cheap", true, nil, new(usd("0.00027"))},
		{"the table's, with no catalogue cached", "llama-3.3-70b", false, nil, new(usd("0.0012"))},
		{"the route's, with no catalogue cached", "cheap", false, nil, nil},
		{"WithModelFacts'", "house-x", false, []infergate.Option{infergate.WithModelFacts(infergate.Model{ID: "house-x",
			Prices: &infergate.ModelPrices{Input: usd("2"), Output: usd("4")}})}, new(usd("0.0028"))},
		{"unknown prices", "house-x", true, nil, nil},
		{"two currencies", "house-x", true, []infergate.Option{infergate.WithModelFacts(mixed)}, nil},
		{"after a fallback", "dear", true, []infergate.Option{infergate.WithFallbackModels("cheap")}, new(usd("0.00027"))},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{false: "/Create", true: "/Stream"}[stream], func(t *testing.T) {
				t.Parallel()
				gw := priceGateway(t, gatewaytest.WithModelDown("dear", gatewaytest.OutageRetryFailed),
					gatewaytest.WithReplies(gatewaytest.Reply{Content: "hello", Usage: usage}))
				c := gw.Client(infergate.WithMaxRetries(0))
				if tc.cached {
					if _, err := c.Models.Get(context.Background(), tc.model); err != nil {
						t.Fatal(err)
					}
				}
				before := modelRequests(gw)
				got := callCost(t, c, stream, tc.model, tc.opts...)
				if (got == nil) != (tc.want == nil) || (got != nil && !got.Equal(*tc.want)) {
					t.Errorf("Cost = %v, want %v", got, tc.want)
				}
				if n := modelRequests(gw) - before; n != 0 {
					t.Errorf("%d catalogue requests: pricing a call must not download it", n)
				}
			})
		}
	}
}

// A tool loop whose turns cost more than MaxCost ends after the turn that crossed it, its calls
// run, with the exact sum of each turn's usage at the prices of the model that served it.
func TestRunToolsCostBudget(t *testing.T) {
	t.Parallel()
	call := []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}
	for _, tc := range []struct {
		name      string
		model     string
		opts      []infergate.Option
		maxCost   infergate.Money
		wantSpent infergate.Money // the sum when the loop stops; zero when it answers
	}{
		// 1000 × 0.15 + 100 × 0.60 = 210 micro-dollars; then 2000 × 0.15 + 100 × 0.60 = 360.
		{"crossed", "cheap", nil, usd("0.0005"), usd("0.00057")},
		{"crossed by a hair", "cheap", nil, usd("0.00056999999999999999"), usd("0.00057")},
		{"reached exactly", "cheap", nil, usd("0.00057"), infergate.Money{}},
		{"no budget", "cheap", nil, infergate.Money{}, infergate.Money{}},
		// "dear" is down: "cheap" serves every turn, at its own prices.
		{"at the serving model's prices", "dear", []infergate.Option{infergate.WithFallbackModels("cheap")}, usd("0.0005"), usd("0.00057")},
		{"from the table", "llama-3.3-70b", nil, usd("0.001"), usd("0.0026")}, // 0.70 / 2.50: 950 + 1650
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := priceGateway(t, gatewaytest.WithModelDown("dear", gatewaytest.OutageRetryFailed))
			gw.Enqueue(
				gatewaytest.Reply{ToolCalls: call, Usage: &gatewaytest.Usage{PromptTokens: 1000, CompletionTokens: 100}},
				gatewaytest.Reply{ToolCalls: call, Usage: &gatewaytest.Usage{PromptTokens: 2000, CompletionTokens: 100}},
				gatewaytest.Reply{Content: "sunny", Usage: &gatewaytest.Usage{PromptTokens: 3000, CompletionTokens: 10}},
			)
			req := infergate.ChatRequest{Model: tc.model, Messages: []infergate.Message{infergate.UserMessage("weather?")}}
			res, err := gw.Client(infergate.WithMaxRetries(0)).Chat.RunTools(context.Background(), req,
				infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}, MaxCost: tc.maxCost}, tc.opts...).Wait()
			if tc.wantSpent.IsZero() {
				if err != nil || res.Answer.Text() != "sunny" {
					t.Fatalf("err = %v, answer %q", err, res.Answer.Text())
				}
				return
			}
			var limit *infergate.ToolLimitError
			if !errors.As(err, &limit) || !errors.Is(err, infergate.ErrToolCostLimit) || errors.Is(err, infergate.ErrToolTokenLimit) ||
				limit.Limit != infergate.ToolLimitCost || limit.Step != 2 || !limit.MaxCost.Equal(tc.maxCost) {
				t.Fatalf("err = %#v", err)
			}
			if !limit.Spent.Equal(tc.wantSpent) {
				t.Errorf("Spent = %s, want %s", limit.Spent, tc.wantSpent)
			}
			// The request, two turns and both turns' tool results; the third turn never started.
			if len(limit.Messages) != 5 || limit.Messages[4].Role != infergate.RoleTool || gw.Pending() != 1 {
				t.Errorf("transcript of %d messages, %d replies left", len(limit.Messages), gw.Pending())
			}
			if !strings.Contains(err.Error(), tc.wantSpent.String()) {
				t.Errorf("the error does not say what was spent: %v", err)
			}
		})
	}
}

// A MaxCost the loop cannot keep is refused before any chat request is sent.
func TestRunToolsCostBudgetRefusals(t *testing.T) {
	t.Parallel()
	mixed := infergate.WithModelFacts(infergate.Model{ID: "house-x", Prices: &infergate.ModelPrices{Input: usd("1"),
		Output: infergate.Money{Amount: dec("1"), Currency: infergate.CurrencyMOR}}})
	isCurrency := func(err error) bool { return errors.Is(err, infergate.ErrCurrencyMismatch) }
	for _, tc := range []struct {
		name    string
		model   string
		maxCost infergate.Money
		opts    []infergate.Option
		want    func(error) bool
	}{
		{"negative", "cheap", usd("-0.01"), nil, isValidation},
		{"unknown prices", "house-x", usd("1"), nil, isValidation},
		{"a fallback's unknown prices", "cheap", usd("1"), []infergate.Option{infergate.WithFallbackModels("house-x")}, isValidation},
		{"the gateway's choice", "", usd("1"), nil, isValidation},
		{"prices in two currencies", "house-x", usd("1"), []infergate.Option{mixed}, isCurrency},
		{"a budget in another currency", "cheap", infergate.Money{Amount: dec("1"), Currency: infergate.CurrencyMOR}, nil, isCurrency},
		{"a budget in no currency", "cheap", infergate.Money{Amount: dec("1")}, nil, isCurrency},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := priceGateway(t)
			req := infergate.ChatRequest{Model: tc.model, Messages: []infergate.Message{infergate.UserMessage("weather?")}}
			_, err := gw.Client(tc.opts...).Chat.RunTools(context.Background(), req,
				infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}, MaxCost: tc.maxCost}).Wait()
			if !tc.want(err) {
				t.Errorf("err = %v", err)
			}
			if n := chatRequests(gw); n != 0 {
				t.Errorf("%d chat requests sent", n)
			}
		})
	}
	gw := priceGateway(t)
	if _, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{MaxCost: usd("-1")}).Wait(); !isValidation(err) || len(gw.Requests()) != 0 {
		t.Errorf("a negative MaxCost: %v, %d requests", err, len(gw.Requests()))
	}
}

// TestRunToolsCostBudgetAcrossAPause: a paused loop's state carries what its turns cost, and the
// loop resumed in another client counts on from it: the turn that crosses the bound after the
// pause stops it, with the exact sum of both turns.
func TestRunToolsCostBudgetAcrossAPause(t *testing.T) {
	t.Parallel()
	gw := priceGateway(t)
	call := []gatewaytest.ToolCall{{ID: "w1", Name: "weather", Arguments: `{"city":"Rome"}`}}
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: call, Usage: &gatewaytest.Usage{PromptTokens: 1000, CompletionTokens: 100}},
		gatewaytest.Reply{ToolCalls: call, Usage: &gatewaytest.Usage{PromptTokens: 2000, CompletionTokens: 100}},
	)
	req := infergate.ChatRequest{Model: "cheap", Messages: []infergate.Message{infergate.UserMessage("weather?")}}
	loop := infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}, MaxCost: usd("0.0005"),
		Defer: func(infergate.ToolCall) bool { return true }}
	_, err := gw.Client().Chat.RunTools(context.Background(), req, loop).Wait()
	var deferred *infergate.ToolsDeferredError
	if !errors.As(err, &deferred) {
		t.Fatalf("err = %v, want a *ToolsDeferredError", err)
	}
	raw, err := json.Marshal(deferred.State)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"spend":{"amount":"0.00021","currency":"USD"}`) {
		t.Errorf("the state does not carry the first turn's cost (210 micro-dollars): %s", raw)
	}
	var state infergate.ToolLoopState
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	loop.Defer = nil
	_, err = gw.Client().Chat.ResumeTools(context.Background(), state, []infergate.ToolOutcome{{CallID: "w1", Output: "sunny"}}, loop).Wait()
	var limit *infergate.ToolLimitError
	if !errors.As(err, &limit) || limit.Limit != infergate.ToolLimitCost || limit.Step != 2 {
		t.Fatalf("err = %#v, want the cost limit at step 2", err)
	}
	if want := usd("0.00057"); !limit.Spent.Equal(want) {
		t.Errorf("Spent = %s, want %s: the turns before the pause count", limit.Spent, want)
	}
}
