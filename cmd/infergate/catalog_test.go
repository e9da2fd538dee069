package main

import (
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

func TestCatalogCommands(t *testing.T) {
	t.Parallel()
	contract := []gatewaytest.ServerOption{gatewaytest.WithContractBids()}
	runGolden(t, []goldenCase{
		{name: "models", args: []string{"models"}},
		{name: "models-json", args: []string{"models", "--json"}},
		{name: "models-stt", args: []string{"models", "--type", "STT"}},
		{name: "models-bad-type", args: []string{"models", "--type", "image"}},
		{name: "bids", args: []string{"bids", "llama-3.3-70b"}},
		{name: "bids-contract-shape", args: []string{"bids", "llama-3.3-70b", "--duration", "10m"}, opts: contract},
		{name: "bids-json", args: []string{"bids", "--json", "--duration", "90s", "llama-3.3-70b"}, opts: contract},
		{name: "bids-json-market-shape", args: []string{"bids", "--json", "llama-3.3-70b"}},
		{name: "bids-unknown-model", args: []string{"bids", "gpt-9"}},
		{name: "bids-model-near-miss", args: []string{"bids", "llama-3.3-70"}},
		{name: "bids-model-slug", args: []string{"bids", "LLAMA 3.3 70B"}},
		{name: "bids-bad-duration", args: []string{"bids", "llama-3.3-70b", "--duration", "1ms"}},
		{name: "bids-none-available", args: []string{"bids", "llama-3.3-70b"}, opts: []gatewaytest.ServerOption{
			gatewaytest.WithBids(gatewaytest.Bid{ID: gatewaytest.HexID("b"), ModelID: gatewaytest.HexID("llama-3.3-70b"),
				Provider: "0x1", PricePerSecondWei: "3000000000000", Rating: 4, TotalSessions: 9, Availability: "offline"}),
			gatewaytest.WithContractBids()}},
	})
}
