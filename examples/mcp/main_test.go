package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/mcptools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOutput runs what main runs, against the fake gateway and the in-process MCP server. The
// results of one step arrive in the order the calls finish, so they are compared sorted.
func TestOutput(t *testing.T) {
	noEnv := func(string) string { return "" } // the fake, whatever the environment holds
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, noEnv, gatewaytest.WithReplies(fakeModel...))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
tool: shop_orders_get (Looks an order up.)
tool: shop_orders_refund (Refunds an order, in full or in part.)
question: Order A-1001 arrived broken, and so did A-1002. Please refund both.
step 1, call: shop_orders_get {"order_id":"A-1001"}
step 1, call: shop_orders_get {"order_id":"A-1002"}
step 1, result of shop_orders_get: {"item":"espresso machine","order_id":"A-1002","total_eur":310}
step 1, result of shop_orders_get: {"item":"teapot","order_id":"A-1001","total_eur":24.5}
step 2, call: shop_orders_refund {"order_id":"A-1001","amount_eur":24.5}
step 2, call: shop_orders_refund {"order_id":"A-1002","amount_eur":310}
step 2, result of shop_orders_refund: Refunds over 100 EUR need a person: A-1002 was not refunded; tell the customer that support will call back.
step 2, result of shop_orders_refund: {"order_id":"A-1001","reference":"R-A-1001","refunded_eur":24.5}
answer: Done: {"order_id":"A-1001","reference":"R-A-1001","refunded_eur":24.5} / Refunds over 100 EUR need a person: A-1002 was not refunded; tell the customer that support will call back.
`
	got := strings.Split(out.String(), "\n")
	slices.Sort(got)
	wanted := strings.Split(want, "\n")
	slices.Sort(wanted)
	if !slices.Equal(got, wanted) {
		t.Errorf("output:\n%s\nwant (in any order within a step):\n%s", out.String(), want)
	}
}

// TestInvalidArgumentsNeverReachTheServer: arguments that break the server's schema come back to
// the model as plain feedback, and the refund tool's own error too.
func TestInvalidArgumentsNeverReachTheServer(t *testing.T) {
	session, stop, err := startShop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	res, err := session.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 2 {
		t.Fatalf("%v, %v", res, err)
	}
	tools, err := connectTools(session)
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		`{"order_id":"A-1001","amount_eur":"all"}`: `Invalid arguments for shop_orders_refund: "amount_eur" must be a number, not a string.`,
		`{"order_id":"A-1001","amount_eur":1000}`:  "shop_orders_refund failed: the amount must be more than 0 and at most the order's total",
	} {
		_, err := tools["shop_orders_refund"].Call(context.Background(), args)
		if err == nil || feedback(err) != want {
			t.Errorf("Call(%s): %v, want %q", args, err, want)
		}
	}
}

func connectTools(session *mcp.ClientSession) (map[string]*infergate.FuncTool, error) {
	tools, err := mcptools.FromSession(context.Background(), session, mcptools.WithPrefix("shop_"))
	byName := map[string]*infergate.FuncTool{}
	for _, tool := range tools {
		byName[tool.Name()] = tool
	}
	return byName, err
}

func feedback(err error) string {
	var te *infergate.ToolError
	if errors.As(err, &te) {
		return te.Feedback()
	}
	return err.Error()
}
