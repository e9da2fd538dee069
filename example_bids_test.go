package infergate_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/infergate/infergate-go"
)

// bidsGateway serves a model catalogue and, for its model, rated bids in the marketplace's
// pass-through shape (prices in wei) as the deployed gateway does.
func bidsGateway() *httptest.Server {
	const modelID = "0x1111111111111111111111111111111111111111111111111111111111111111"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/chat/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"llama-3.3-70b","blockchainID":"`+modelID+`","modelType":"LLM"}]}`)
	})
	mux.HandleFunc("GET /api/v1/models/ratedbids", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("model_id") != modelID {
			http.Error(w, `{"detail":"model_id must be the model's hex id"}`, http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, `{"bids":[
			{"ID":"0xb1","Bid":{"Id":"0xb1","Provider":"0xaaa","ModelAgentId":"`+modelID+`","PricePerSecond":"125000000000000","Nonce":"1","CreatedAt":"1736000000","DeletedAt":"0"},"Score":0.73},
			{"ID":"0xb2","Bid":{"Id":"0xb2","Provider":"0xbbb","ModelAgentId":"`+modelID+`","PricePerSecond":"200000000000000","Nonce":"4","CreatedAt":"1737000000","DeletedAt":"0"},"Score":0.41}]}`)
	})
	return httptest.NewServer(mux)
}

func ExampleBidsService_Rated() {
	srv := bidsGateway()
	defer srv.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}

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
