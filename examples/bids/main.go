// Bids lists the providers' rated bids for a model as a table, best first, and what a 10-minute
// session costs on the best of them and on the cheapest.
//
//	go run ./examples/bids [model name or hex id]
//
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set, and otherwise to an in-process fake.
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"text/tabwriter"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// minutes is the length of the session to price.
const minutes = 10

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client, os.Args[1:]...)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// run lists the bids for the model named by args, llama-3.3-70b by default.
func run(ctx context.Context, out io.Writer, client *infergate.Client, args ...string) error {
	model := "llama-3.3-70b"
	if len(args) > 0 {
		model = args[0]
	}
	// A name is looked up in the model catalogue: the bids route takes only hex ids.
	bids, err := client.Bids.Rated(ctx, model)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d bids for %s\n", len(bids), model)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BID\tPROVIDER\tMOR/SECOND\tRATING\tAVAILABILITY")
	// The gateway does not promise an order: rank the bids the same way whatever their shape.
	for _, b := range infergate.RankBids(bids) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", short(b.ID), short(b.Provider), b.PricePerSecond.Amount,
			rating(b), cmp.Or(string(b.Availability), "-"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	best, ok := infergate.BestBid(bids)
	if !ok {
		fmt.Fprintln(out, "no provider is available")
		return nil
	}
	// Prices are exact decimals in MOR: the cost is the price times the seconds, with no rounding.
	fmt.Fprintf(out, "a %d-minute session on the best bid, %s, costs %s\n", minutes, short(best.ID),
		best.Cost(minutes*time.Minute))
	if cheapest, _ := infergate.CheapestBid(bids); cheapest.ID != best.ID {
		fmt.Fprintf(out, "on the cheapest, %s, it costs %s\n", short(cheapest.ID), cheapest.Cost(minutes*time.Minute))
	}
	return nil
}

// rating shows the contract's 0-5 rating, or the marketplace's score when that is what came.
func rating(b infergate.RatedBid) string {
	if b.Rating == 0 && b.Availability == "" {
		return fmt.Sprintf("score %.2f", b.Score)
	}
	return fmt.Sprintf("%.1f/5", b.Rating)
}

// short abbreviates a 0x hex id for the table.
func short(id string) string {
	if len(id) <= 14 {
		return id
	}
	return id[:8] + "…" + id[len(id)-4:]
}
