package infergate_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// bidsGateway is a fake gateway with one model and two bids on it, in the marketplace's
// pass-through shape (prices in wei) as the deployed gateway sends them.
func bidsGateway() *gatewaytest.Server {
	const modelID = "0x1111111111111111111111111111111111111111111111111111111111111111"
	return gatewaytest.NewServer(
		gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "llama-3.3-70b", BlockchainID: modelID}),
		gatewaytest.WithBids(
			gatewaytest.Bid{ID: "0xb1", ModelID: modelID, Provider: "0xaaa", PricePerSecondWei: "125000000000000", Score: 0.73},
			gatewaytest.Bid{ID: "0xb2", ModelID: modelID, Provider: "0xbbb", PricePerSecondWei: "200000000000000", Score: 0.41},
		),
	)
}

func ExampleBidsService_Rated() {
	gateway := bidsGateway()
	defer gateway.Close()
	client := gateway.Client()

	// A name is looked up in the catalogue first: the route itself takes only hex ids.
	bids, err := client.Bids.Rated(context.Background(), "llama-3.3-70b")
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range infergate.RankBids(bids) {
		fmt.Printf("%s from %s: %s/s, one hour costs %s\n", b.ID, b.Provider, b.PricePerSecond, b.Cost(time.Hour))
	}
	if best, ok := infergate.BestBid(bids); ok {
		fmt.Println("best:", best.ID)
	}
	// Output:
	// 0xb1 from 0xaaa: 0.000125 MOR/s, one hour costs 0.45 MOR
	// 0xb2 from 0xbbb: 0.0002 MOR/s, one hour costs 0.72 MOR
	// best: 0xb1
}

// money is an amount in a currency, for the examples.
func money(amount string, currency infergate.Currency) infergate.Money {
	d, err := infergate.ParseDecimal(amount)
	if err != nil {
		log.Fatal(err)
	}
	return infergate.Money{Amount: d, Currency: currency}
}

// mor is an amount of the network's token, for the examples.
func mor(amount string) infergate.Money { return money(amount, infergate.CurrencyMOR) }

func ExampleBestBid() {
	bids := []infergate.RatedBid{
		{ID: "0xb1", Rating: 4.9, Availability: infergate.AvailabilityBusy},
		{ID: "0xb2", Rating: 4.7, PricePerSecond: mor("0.0002"), Availability: infergate.AvailabilityAvailable},
		{ID: "0xb3", Rating: 4.8, PricePerSecond: mor("0.0003"), Availability: infergate.AvailabilityAvailable},
	}
	best, ok := infergate.BestBid(bids)
	fmt.Println(best.ID, ok)
	cheapest, ok := infergate.CheapestBid(bids)
	fmt.Println(cheapest.ID, ok)
	// Output:
	// 0xb3 true
	// 0xb2 true
}

func ExampleRankBids() {
	// The marketplace's pass-through shape: a Score, no rating, no availability, in no set order.
	bids := []infergate.RatedBid{
		{ID: "0xb1", Score: 0.41, PricePerSecond: mor("0.0001")},
		{ID: "0xb2", Score: 0.73, PricePerSecond: mor("0.0002")},
		{ID: "0xb3", Score: 0.73, PricePerSecond: mor("0.00015")},
	}
	for _, b := range infergate.RankBids(bids) {
		fmt.Println(b.ID, b.Score, b.PricePerSecond)
	}
	// Output:
	// 0xb3 0.73 0.00015 MOR
	// 0xb2 0.73 0.0002 MOR
	// 0xb1 0.41 0.0001 MOR
}

func ExampleRatedBid_Cost() {
	bid := infergate.RatedBid{PricePerSecond: mor("0.000125")}
	budget := mor("0.5")

	cost := bid.Cost(90 * time.Minute)
	within, err := cost.Cmp(budget)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cost, "within budget:", within <= 0)
	// Output: 0.675 MOR within budget: false
}

// A session on a bid is paid in MOR, the network's token, from a stake; the account's balance is
// in USD, and the API has no exchange rate between the two.
func ExampleRatedBid_Lasts() {
	bid := infergate.RatedBid{PricePerSecond: mor("0.000125")}

	d, err := bid.Lasts(mor("2")) // a stake of 2 MOR
	fmt.Println(d, err)

	balance := money("32.375", infergate.CurrencyUSD) // what Billing.Balance reports
	_, err = bid.Lasts(balance)
	fmt.Println(err)
	// Output:
	// 4h26m40s <nil>
	// infergate: amounts in different currencies: the budget is in USD but the bid's price is in MOR: the API gives no exchange rate between currencies
}

func ExampleMoney_Add() {
	var total infergate.Money // the zero Money takes the currency of what is added to it
	for _, cost := range []string{"0.0012", "0.0003"} {
		var err error
		if total, err = total.Add(money(cost, infergate.CurrencyUSD)); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(total)
	_, err := total.Add(mor("1"))
	fmt.Println(err)
	// Output:
	// 0.0015 USD
	// infergate: amounts in different currencies: cannot add 0.0015 USD and 1 MOR: the API gives no exchange rate between currencies
}

func ExampleParseDecimal() {
	a, _ := infergate.ParseDecimal("0.1")
	b, _ := infergate.ParseDecimal("0.2")
	fmt.Println(a.Add(b)) // exact, unlike float64
	fmt.Println(a.Mul(b), a.MulInt(3600))
	// Output:
	// 0.3
	// 0.02 360
}

func ExampleFromWei() {
	price, err := infergate.FromWei("125000000000000")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(price)
	// Output: 0.000125
}
