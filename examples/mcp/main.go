// MCP lets the model use the tools of an MCP (Model Context Protocol) server: a small shop server
// with two tools, "orders.get" and "orders.refund", runs in this process, mcptools.FromSession
// turns its tools into infergate tools (named shop_orders_get and shop_orders_refund, since a
// function name cannot hold a dot), and RunTools runs the conversation. Refunds over 100 EUR need
// an approval that this program refuses, and each call has 10 s at most.
//
//	go run .    (from examples/mcp, a module of its own so that the SDK's root needs no MCP)
//
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set (gatewaytest.Connect), and otherwise to an in-process fake whose model
// is scripted below.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/mcptools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const question = "Order A-1001 arrived broken, and so did A-1002. Please refund both."

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, gatewaytest.WithReplies(fakeModel...))
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// fakeModel looks both orders up, asks for both refunds, then answers from what the tools said.
var fakeModel = []gatewaytest.Reply{
	{ToolCalls: []gatewaytest.ToolCall{
		{Name: "shop_orders_get", Arguments: `{"order_id":"A-1001"}`},
		{Name: "shop_orders_get", Arguments: `{"order_id":"A-1002"}`},
	}},
	{ToolCalls: []gatewaytest.ToolCall{
		{Name: "shop_orders_refund", Arguments: `{"order_id":"A-1001","amount_eur":24.5}`},
		{Name: "shop_orders_refund", Arguments: `{"order_id":"A-1002","amount_eur":310}`},
	}},
	{Respond: func(conversation []gatewaytest.Turn) gatewaytest.Reply {
		var results []string
		for _, turn := range conversation[len(conversation)-2:] {
			results = append(results, turn.Content)
		}
		return gatewaytest.Reply{Content: "Done: " + strings.Join(results, " / ")}
	}},
}

func run(ctx context.Context, out io.Writer, client *infergate.Client) error {
	session, stopShop, err := startShop(ctx)
	if err != nil {
		return err
	}
	defer stopShop()
	tools, err := mcptools.FromSession(ctx, session, mcptools.WithPrefix("shop_"))
	if err != nil {
		return err
	}
	for _, tool := range tools {
		fmt.Fprintf(out, "tool: %s (%s)\n", tool.Name(), tool.Definition().Function.Description)
	}
	fmt.Fprintln(out, "question:", question)
	loop := infergate.ToolLoop{
		Tools:       tools,
		MaxSteps:    6,
		ToolTimeout: 10 * time.Second,
		Approve:     approveRefunds,
	}
	run := client.Chat.RunTools(ctx, infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage(question)},
	}, loop)
	for event, err := range run.Events() {
		if err != nil {
			return err
		}
		switch event.Kind {
		case infergate.ToolEventTurn:
			for _, call := range event.Message.ToolCalls {
				fmt.Fprintf(out, "step %d, call: %s %s\n", event.Step, call.Function.Name, call.Function.Arguments)
			}
		case infergate.ToolEventResult:
			// r.Output is what the model reads, whether the call succeeded or not.
			r := event.Result
			fmt.Fprintf(out, "step %d, result of %s: %s\n", event.Step, r.Call.Function.Name, r.Output)
		}
	}
	res, err := run.Wait()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "answer:", res.Answer.Text())
	return nil
}

// approveRefunds stands for a person or a policy: refunds up to 100 EUR go through, larger ones are
// refused, and the model reads why.
func approveRefunds(_ context.Context, call infergate.ToolCall) error {
	if call.Function.Name != "shop_orders_refund" {
		return nil
	}
	var refund refundRequest
	if err := json.Unmarshal([]byte(call.Function.Arguments), &refund); err != nil {
		return err
	}
	if refund.AmountEUR > 100 {
		return fmt.Errorf("Refunds over 100 EUR need a person: %s was not refunded; tell the customer that support will call back.", refund.OrderID)
	}
	return nil
}

type orderRequest struct {
	OrderID string `json:"order_id" jsonschema:"the order's id, e.g. A-1001"`
}

type order struct {
	OrderID  string  `json:"order_id"`
	Item     string  `json:"item"`
	TotalEUR float64 `json:"total_eur"`
}

type refundRequest struct {
	OrderID   string  `json:"order_id" jsonschema:"the order to refund"`
	AmountEUR float64 `json:"amount_eur" jsonschema:"how much to refund, in euros"`
}

type refund struct {
	OrderID   string  `json:"order_id"`
	Refunded  float64 `json:"refunded_eur"`
	Reference string  `json:"reference"`
}

// orders stands in for the shop's database.
var orders = map[string]order{
	"A-1001": {OrderID: "A-1001", Item: "teapot", TotalEUR: 24.5},
	"A-1002": {OrderID: "A-1002", Item: "espresso machine", TotalEUR: 310},
}

// startShop runs the shop's MCP server in this process and connects a client session to it over
// the SDK's in-memory transport; a real server would be reached with mcp.CommandTransport or
// mcp.StreamableClientTransport instead.
func startShop(ctx context.Context) (*mcp.ClientSession, func(), error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "orders.get", Description: "Looks an order up."},
		func(_ context.Context, _ *mcp.CallToolRequest, in orderRequest) (*mcp.CallToolResult, order, error) {
			o, ok := orders[in.OrderID]
			if !ok {
				return nil, order{}, fmt.Errorf("no order %q", in.OrderID)
			}
			return nil, o, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "orders.refund", Description: "Refunds an order, in full or in part."},
		func(_ context.Context, _ *mcp.CallToolRequest, in refundRequest) (*mcp.CallToolResult, refund, error) {
			o, ok := orders[in.OrderID]
			if !ok || in.AmountEUR <= 0 || in.AmountEUR > o.TotalEUR {
				return nil, refund{}, errors.New("the amount must be more than 0 and at most the order's total")
			}
			return nil, refund{OrderID: o.OrderID, Refunded: in.AmountEUR, Reference: "R-" + o.OrderID}, nil
		})
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		return nil, nil, err
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "mcp-example", Version: "1.0.0"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		serverSession.Close()
		return nil, nil, err
	}
	return session, func() {
		session.Close()
		serverSession.Wait()
	}, nil
}
