package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
	noEnv := func(string) string { return "" } // the fake, whatever the environment holds
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, noEnv, fake...)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
topic: invoices charged twice
topic: API keys page does not load
from:    Ana Sousa <ana.sousa@lisbon-bakeries.pt>, Lisbon Bakeries
phone:   +351 21 000 0000
urgency: high
topics:  invoices charged twice; API keys page does not load
(read in prompt mode, 1 attempt(s), 55 tokens)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestRun checks what run sends, and that a model that never gives a ticket is an error.
func TestRun(t *testing.T) {
	srv := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{Content: "I cannot help with that."},
		gatewaytest.Reply{Content: "Still no."},
		gatewaytest.Reply{Content: "No."}))
	var out strings.Builder
	err := run(context.Background(), &out, srv.Client())
	if !errors.Is(err, infergate.ErrNoObject) {
		t.Fatalf("err = %v, want ErrNoObject", err)
	}
	first := srv.Requests()[0].JSON
	tool := first["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if tool["name"] != "file_ticket" || first["stream"] != true {
		t.Errorf("request = %s", srv.Requests()[0].Body)
	}
}
