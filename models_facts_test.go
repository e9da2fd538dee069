package infergate

// pricesUSD are prices in USD per million tokens, for the tables of tests.
func pricesUSD(in, out string) *ModelPrices {
	i, err := ParseDecimal(in)
	if err != nil {
		panic(err)
	}
	o, err := ParseDecimal(out)
	if err != nil {
		panic(err)
	}
	return &ModelPrices{Input: Money{i, CurrencyUSD}, Output: Money{o, CurrencyUSD}}
}
