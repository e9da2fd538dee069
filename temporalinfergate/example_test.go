package temporalinfergate_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// A refund waits for a person's decision, here a day later, while the lookup runs at once. The
// example runs offline: on a fake gateway and Temporal's test environment, whose clock skips the
// day. On a real deployment, the worker registers the activities and the workflow, and the
// decision comes with SendOutcome.
func ExampleRunTools() {
	gw := gatewaytest.NewServer() // stands in for the real gateway and its model
	defer gw.Close()
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_1", Name: "lookup", Arguments: `{"order":"A-17"}`},
			{ID: "call_2", Name: "refund", Arguments: `{"order":"A-17"}`},
		}},
		gatewaytest.Reply{Respond: toolResults},
	)
	type order struct {
		Order string `json:"order"`
	}
	lookup, err := infergate.NewTool("lookup", "Finds an order.", func(_ context.Context, in order) (string, error) {
		return "order " + in.Order + " was delivered", nil
	})
	if err != nil {
		log.Fatal(err)
	}
	refund, err := infergate.NewTool("refund", "Refunds an order.", func(_ context.Context, in order) (string, error) {
		return "refunded " + in.Order, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	agent := func(ctx workflow.Context, question string) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: 10 * time.Second})
		res, err := temporalinfergate.RunTools(ctx, infergate.ChatRequest{Model: "llama-3.3-70b",
			Messages: []infergate.Message{infergate.UserMessage(question)}},
			temporalinfergate.ToolLoop{Tools: []string{"lookup", "refund"}, DeferTools: []string{"refund"}})
		if err != nil {
			return "", err
		}
		return res.Answer.Text(), nil
	}

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))) // it logs to stdout otherwise
	env := suite.NewTestWorkflowEnvironment()
	acts, err := temporalinfergate.NewActivities(gw.Client(), lookup, refund) // on the worker, with its key
	if err != nil {
		log.Fatal(err)
	}
	acts.Register(env)
	env.RegisterDelayedCallback(func() { // the next day, someone approves the refund
		v, err := env.QueryWorkflow(temporalinfergate.QueryPendingToolCalls)
		if err != nil {
			log.Fatal(err)
		}
		var waiting []infergate.ToolCall
		if err := v.Get(&waiting); err != nil {
			log.Fatal(err)
		}
		for _, call := range waiting {
			fmt.Println("waiting:", call.Function.Name, call.Function.Arguments)
		}
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, infergate.ToolOutcome{CallID: "call_2", Output: "refunded A-17, approved by Ann"})
	}, 24*time.Hour)
	env.ExecuteWorkflow(agent, "Refund order A-17, please.")
	var answer string
	if err := env.GetWorkflowResult(&answer); err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
	// Output:
	// waiting: refund {"order":"A-17"}
	// order A-17 was delivered | refunded A-17, approved by Ann
}
