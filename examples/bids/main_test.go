package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	bid1, bid2 := gatewaytest.HexID("llama-3.3-70b/bid/1"), gatewaytest.HexID("llama-3.3-70b/bid/2")
	p1, p2 := gatewaytest.HexID("llama-3.3-70b/provider/1")[:42], gatewaytest.HexID("llama-3.3-70b/provider/2")[:42]
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
2 bids for llama-3.3-70b
BID            PROVIDER       MOR/SECOND  RATING      AVAILABILITY
` + short(bid1) + `  ` + short(p1) + `  0.000001    score 0.73  -
` + short(bid2) + `  ` + short(p2) + `  0.0000025   score 0.41  -
a 10-minute session on the best bid, ` + short(bid1) + `, costs 0.0006 MOR
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestRun(t *testing.T) {
	model := gatewaytest.HexID("llama-3.3-70b")
	bid := func(id, wei string, rating float64, availability string) gatewaytest.Bid {
		return gatewaytest.Bid{ID: id, ModelID: model, Provider: "0xabc", PricePerSecondWei: wei,
			Rating: rating, Availability: availability}
	}
	scored := func(id, wei string, score float64) gatewaytest.Bid {
		return gatewaytest.Bid{ID: id, ModelID: model, Provider: "0xabc", PricePerSecondWei: wei, Score: score}
	}
	tests := []struct {
		name    string
		opts    []gatewaytest.ServerOption
		args    []string
		want    string // the output's last line
		wantErr error
	}{
		{name: "best is the first available", args: []string{model}, opts: []gatewaytest.ServerOption{
			gatewaytest.WithContractBids(),
			gatewaytest.WithBids(bid("0xb1", "900000000000000", 4.9, "busy"), bid("0xb2", "125000000000000", 4.5, "available")),
		}, want: "a 10-minute session on the best bid, 0xb2, costs 0.075 MOR"},
		{name: "pass-through bids out of order: best by score, then the cheapest", args: []string{model}, opts: []gatewaytest.ServerOption{
			gatewaytest.WithBids(scored("0xb1", "100000000000000", 0.41), scored("0xb2", "125000000000000", 0.73)),
		}, want: "on the cheapest, 0xb1, it costs 0.06 MOR"},
		{name: "none available", opts: []gatewaytest.ServerOption{
			gatewaytest.WithContractBids(), gatewaytest.WithBids(bid("0xb1", "1", 4.9, "offline")),
		}, want: "no provider is available"},
		{name: "no bids", opts: []gatewaytest.ServerOption{gatewaytest.WithBids()}, want: "no provider is available"},
		{name: "unknown model", args: []string{"no-such-model"}, wantErr: infergate.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.New(t, tt.opts...)
			var out strings.Builder
			err := run(context.Background(), &out, srv.Client(), tt.args...)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if got := lines[len(lines)-1]; got != tt.want {
				t.Errorf("last line = %q, want %q\n%s", got, tt.want, out.String())
			}
		})
	}
}

func TestTableShowsContractFields(t *testing.T) {
	srv := gatewaytest.New(t, gatewaytest.WithContractBids())
	var out strings.Builder
	if err := run(context.Background(), &out, srv.Client()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	var got [][]string
	for _, row := range lines[2:4] {
		got = append(got, strings.Fields(row)[2:])
	}
	want := [][]string{{"0.000001", "3.6/5", "available"}, {"0.0000025", "2.0/5", "busy"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("price, rating and availability columns (-want +got):\n%s", diff)
	}
}
