package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ExampleChatService_ResumeTools() {
	gw := gatewaytest.NewServer() // stands in for the real gateway and its model
	defer gw.Close()
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_1", Name: "lookup", Arguments: `{"order":"A-17"}`},
			{ID: "call_2", Name: "refund", Arguments: `{"order":"A-17","euros":40}`},
		}},
		gatewaytest.Reply{Respond: func(conversation []gatewaytest.Turn) gatewaytest.Reply {
			var results []string
			for _, turn := range conversation {
				if turn.Role == "tool" {
					results = append(results, turn.Content)
				}
			}
			return gatewaytest.Reply{Content: "Done: " + strings.Join(results, "; ")}
		}},
	)
	type order struct {
		Order string `json:"order"`
		Euros int    `json:"euros,omitempty"`
	}
	lookup, err := infergate.NewTool("lookup", "Finds an order.", func(_ context.Context, in order) (string, error) {
		return "order " + in.Order + " was delivered", nil
	})
	if err != nil {
		log.Fatal(err)
	}
	refund, err := infergate.NewTool("refund", "Refunds an order.", func(_ context.Context, in order) (string, error) {
		return fmt.Sprintf("refunded %d euros", in.Euros), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	loop := infergate.ToolLoop{
		Tools: []*infergate.FuncTool{lookup, refund},
		// Refunds wait for a person; lookups run at once.
		Defer: func(call infergate.ToolCall) bool { return call.Function.Name == "refund" },
	}

	ctx := context.Background()
	_, err = gw.Client().Chat.RunTools(ctx, infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("Refund order A-17, please.")},
	}, loop).Wait()
	var paused *infergate.ToolsDeferredError
	if !errors.As(err, &paused) {
		log.Fatal(err)
	}
	for _, call := range paused.Pending {
		fmt.Println("waiting for a decision on", call.Function.Name, call.Function.Arguments)
	}
	saved, err := json.Marshal(paused.State) // kept in a database until someone decides
	if err != nil {
		log.Fatal(err)
	}

	// Later, in another process with a client of its own: the decision arrives.
	var state infergate.ToolLoopState
	if err := json.Unmarshal(saved, &state); err != nil {
		log.Fatal(err)
	}
	call := paused.Pending[0]
	output, err := refund.Call(ctx, call.Function.Arguments) // approved: run it here
	if err != nil {
		log.Fatal(err)
	}
	res, err := gw.Client().Chat.ResumeTools(ctx, state,
		[]infergate.ToolOutcome{{CallID: call.ID, Output: output}}, loop).Wait()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Answer.Text())
	fmt.Println("model turns:", res.Steps)
	// Output:
	// waiting for a decision on refund {"order":"A-17","euros":40}
	// Done: order A-17 was delivered; refunded 40 euros
	// model turns: 2
}
