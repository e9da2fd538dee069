package infergate

import (
	"context"
	"fmt"
)

// Money is an amount with its currency. Every amount the SDK returns is one: a balance and the
// costs of usage records are in the account's currency (CurrencyUSD on the deployed gateway), a
// bid's price and the cost of a session on it are in the network's token (CurrencyMOR).
//
// The API gives no exchange rate between the two, so the SDK never converts: arithmetic and
// comparisons between amounts in different currencies return an error matching
// ErrCurrencyMismatch that names both, instead of a number that looks right and means nothing. The zero Money, 0 with no currency, goes
// with any currency, so that a running total can start from it.
//
// Compare Money values with Equal (go-cmp uses it too): == does not compile, as for Decimal. On its own, Money encodes to
// JSON as {"amount":"0.45","currency":"MOR"}; inside the SDK's types it keeps the wire's shape, a
// bare amount whose currency the type or the route gives.
type Money struct {
	Amount   Decimal  `json:"amount"`   // exact, never a float; negative for a debit or a hold
	Currency Currency `json:"currency"` // CurrencyUSD, CurrencyMOR, or as the server named it
}

// Currency names the unit of a Money: CurrencyUSD, CurrencyMOR, or another as a server names it.
type Currency string

// The currencies the gateway deals in.
const (
	// CurrencyUSD is the account's credits: balances and the costs of usage records.
	CurrencyUSD Currency = "USD"
	// CurrencyMOR is the network's token: bid prices and the cost of provider sessions.
	CurrencyMOR Currency = "MOR"
)

// Add returns m + x. Amounts in different currencies are not added: the error matches
// ErrCurrencyMismatch.
func (m Money) Add(x Money) (Money, error) {
	currency, err := m.currencyWith(x, "add")
	if err != nil {
		return Money{}, err
	}
	return Money{Amount: m.Amount.Add(x.Amount), Currency: currency}, nil
}

// Sub returns m - x. Amounts in different currencies are not subtracted: the error
// matches ErrCurrencyMismatch.
func (m Money) Sub(x Money) (Money, error) {
	currency, err := m.currencyWith(x, "subtract")
	if err != nil {
		return Money{}, err
	}
	return Money{Amount: m.Amount.Sub(x.Amount), Currency: currency}, nil
}

// Cmp compares m and x: -1 if m < x, 0 if they are equal, +1 if m > x. Amounts in different
// currencies do not compare: the error matches ErrCurrencyMismatch.
func (m Money) Cmp(x Money) (int, error) {
	if _, err := m.currencyWith(x, "compare"); err != nil {
		return 0, err
	}
	return m.Amount.Cmp(x.Amount), nil
}

// Equal reports whether m and x are the same amount in the same currency ("1.50 USD" and
// "1.5 USD" are equal; 1 USD and 1 MOR are not). It also lets go-cmp compare structs holding Money.
func (m Money) Equal(x Money) bool {
	return m.Currency == x.Currency && m.Amount.Equal(x.Amount)
}

// MulInt returns m × n in m's currency, e.g. a price per second times a number of seconds.
func (m Money) MulInt(n int64) Money {
	return Money{Amount: m.Amount.MulInt(n), Currency: m.Currency}
}

// IsZero reports whether the amount is 0, whatever the currency.
func (m Money) IsZero() bool { return m.Amount.IsZero() }

// Sign returns -1, 0 or +1 for a negative, zero or positive amount.
func (m Money) Sign() int { return m.Amount.Sign() }

// String writes the amount and its currency, "0.45 MOR"; the amount alone when there is no currency.
func (m Money) String() string {
	if m.Currency == "" {
		return m.Amount.String()
	}
	return m.Amount.String() + " " + string(m.Currency)
}

// currencyWith returns the currency of a result combining m and x, or the error saying they do not
// combine. The zero Money with no currency takes the other's.
func (m Money) currencyWith(x Money, verb string) (Currency, error) {
	switch {
	case m.Currency == x.Currency:
		return m.Currency, nil
	case m.Currency == "" && m.IsZero():
		return x.Currency, nil
	case x.Currency == "" && x.IsZero():
		return m.Currency, nil
	}
	return "", fmt.Errorf("%w: cannot %s %s and %s: %s", ErrCurrencyMismatch, verb, m, x, noExchangeRate)
}

// noExchangeRate is why amounts in two currencies never meet.
const noExchangeRate = "the API gives no exchange rate between currencies"

// currencyName names a currency in an error, the empty one included.
func currencyName(c Currency) string {
	if c == "" {
		return "no currency"
	}
	return string(c)
}

// wireAmount is m's amount for a wire field whose currency is want, which the wire does not write:
// an amount in another currency would read back as want, so it is refused. A Money with no
// currency is taken to be in want.
func wireAmount(field string, m Money, want Currency) (Decimal, error) {
	if m.Currency != "" && m.Currency != want {
		return Decimal{}, invalid(field, "is in %s; this JSON shape carries only %s amounts", m.Currency, want)
	}
	return m.Amount, nil
}

// Cost returns what usage costs at p, as the gateway bills it: PromptTokens × Input ÷ 1,000,000 +
// CompletionTokens × Output ÷ 1,000,000, exact, in Decimal (a count below 0 counts as 0), in the
// prices' currency (a price of 0 with no currency takes the other's).
//
// Prices in two different currencies have no cost, as the API gives no exchange rate between them:
// Cost then returns the zero Money (0, with no currency), ResponseInfo.Cost is nil, and a
// ToolLoop.MaxCost refuses them with an error matching ErrCurrencyMismatch. Compare Input.Currency
// with Output.Currency to tell such prices from a call that cost nothing.
func (p ModelPrices) Cost(u Usage) Money {
	cost, err := p.cost(u)
	if err != nil {
		return Money{}
	}
	return cost
}

// cost is Cost, with the error of prices in two currencies, which matches ErrCurrencyMismatch.
func (p ModelPrices) cost(u Usage) (Money, error) {
	currency, err := p.currency()
	if err != nil {
		return Money{}, err
	}
	perMillion := p.Input.Amount.MulInt(int64(max(u.PromptTokens, 0))).Add(p.Output.Amount.MulInt(int64(max(u.CompletionTokens, 0))))
	return Money{Amount: newDecimal(perMillion.mantissa(), int64(perMillion.scale)+6), Currency: currency}, nil
}

// currency is the currency p's costs are in, or the error of prices in two currencies.
func (p ModelPrices) currency() (Currency, error) {
	return p.Input.currencyWith(p.Output, "combine the prices")
}

// costBudget is a tool loop's ToolLoop.MaxCost: the prices of the models its turns may be served
// by, and what its turns have cost so far.
type costBudget struct {
	max    Money
	models []string      // the loop's models: its request's, then the fallbacks, each once
	prices []ModelPrices // the prices of models
	sticky *stickyModel  // which of models served the last turn
	spent  Money
}

// costBudget returns the budget of a tool loop whose request names model; nil when max is zero.
// Before anything is sent, it refuses a negative max and a model whose prices are unknown (each a
// *ValidationError), and prices in two currencies or in another currency than max's (an error
// matching ErrCurrencyMismatch). The prices are those Models.Get gives: the client's cached
// catalogue, downloaded if it holds none, completed with WithModelFacts and the built-in table.
func (c *config) costBudget(ctx context.Context, model string, max Money, sticky *stickyModel) (*costBudget, error) {
	switch {
	case max.IsZero():
		return nil, nil
	case max.Sign() < 0:
		return nil, invalid("ToolLoop.MaxCost", "must not be negative, got %s", max)
	}
	var catalogue []Model
	if c.catalogue != nil {
		catalogue, _ = c.catalogue(ctx, c) // one that cannot be read leaves the facts and the table
	}
	b := &costBudget{max: max, models: distinctModels(append([]string{model}, c.fallbackModels...)), sticky: sticky,
		spent: Money{Currency: max.Currency}}
	for _, m := range b.models {
		p := c.pricesIn(catalogue, m)
		if p == nil {
			return nil, invalid("ToolLoop.MaxCost", "model %s has no known prices to count the loop's cost by; give them with WithModelFacts", modelName(m))
		}
		currency, err := p.currency()
		if err != nil {
			return nil, fmt.Errorf("infergate: ToolLoop.MaxCost: model %s: %w", modelName(m), err)
		}
		if currency != max.Currency && !(p.Input.IsZero() && p.Output.IsZero()) {
			return nil, fmt.Errorf("%w: ToolLoop.MaxCost is %s, but model %s is priced in %s: %s",
				ErrCurrencyMismatch, max, modelName(m), currencyName(currency), noExchangeRate)
		}
		b.prices = append(b.prices, *p)
	}
	return b, nil
}

// add counts the cost of a turn that spent u, at the prices of the model that served it.
func (b *costBudget) add(u Usage) {
	if b == nil {
		return
	}
	cost, _ := b.prices[b.sticky.start%len(b.models)].cost(u) // the currencies were checked
	b.spent.Amount = b.spent.Amount.Add(cost.Amount)
}

// exceeded reports whether the turns have cost more than the budget; reaching it is not exceeding it.
func (b *costBudget) exceeded() bool { return b != nil && b.spent.Amount.Cmp(b.max.Amount) > 0 }
