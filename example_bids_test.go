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
	for _, b := range bids {
		fmt.Printf("%s from %s: %s tokens/s, one hour costs %s\n", b.BidID, b.Provider, b.PricePerSecond, b.Cost(time.Hour))
	}
	if best, ok := infergate.BestBid(bids); ok {
		fmt.Println("best:", best.BidID)
	}
	// Output:
	// 0xb1 from 0xaaa: 0.000125 tokens/s, one hour costs 0.45
	// 0xb2 from 0xbbb: 0.0002 tokens/s, one hour costs 0.72
	// best: 0xb1
}

func ExampleBestBid() {
	bids := []infergate.RatedBid{
		{BidID: "0xb1", Rating: 4.9, Availability: infergate.AvailabilityBusy},
		{BidID: "0xb2", Rating: 4.7, Availability: infergate.AvailabilityAvailable},
	}
	best, ok := infergate.BestBid(bids)
	fmt.Println(best.BidID, ok)
	// Output: 0xb2 true
}

func ExampleRatedBid_Cost() {
	price, err := infergate.ParseDecimal("0.000125")
	if err != nil {
		log.Fatal(err)
	}
	bid := infergate.RatedBid{PricePerSecond: price}
	budget, _ := infergate.ParseDecimal("0.5")

	cost := bid.Cost(90 * time.Minute)
	fmt.Println(cost, "within budget:", cost.Cmp(budget) <= 0)
	// Output: 0.675 within budget: false
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
