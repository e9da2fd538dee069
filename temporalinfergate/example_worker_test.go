package temporalinfergate_test

import (
	"context"
	"log"
	"os"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/temporalinfergate"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// A worker: the activities of a client that holds the key, which stays in this process, and the
// workflows that use them. It needs a Temporal server, so the example is compiled, not run.
func ExampleActivities_Register() {
	temporalClient, err := client.Dial(client.Options{HostPort: client.DefaultHostPort})
	if err != nil {
		log.Fatal(err)
	}
	defer temporalClient.Close()
	gateway, err := infergate.NewClient(infergate.WithAPIKey(os.Getenv("INFERGATE_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	refund, err := infergate.NewTool("refund", "Refunds an order.", func(_ context.Context, in struct {
		Order string `json:"order"`
	}) (string, error) {
		return "refunded " + in.Order, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	acts, err := temporalinfergate.NewActivities(gateway, refund)
	if err != nil {
		log.Fatal(err)
	}
	w := worker.New(temporalClient, "agents", worker.Options{})
	acts.Register(w)
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context, question string) (string, error) {
		res, err := temporalinfergate.RunTools(ctx, infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage(question)}},
			temporalinfergate.ToolLoop{Tools: []string{"refund"}, DeferTools: []string{"refund"}})
		if err != nil {
			return "", err
		}
		return res.Answer.Text(), nil
	}, workflow.RegisterOptions{Name: "agent"})
	if err := w.Run(worker.InterruptCh()); err != nil {
		log.Fatal(err)
	}
}

// A person's decision on a refund the workflow "order-A-17" waits for. It needs a Temporal server,
// so the example is compiled, not run.
func ExampleSendOutcome() {
	temporalClient, err := client.Dial(client.Options{HostPort: client.DefaultHostPort})
	if err != nil {
		log.Fatal(err)
	}
	defer temporalClient.Close()
	err = temporalinfergate.SendOutcome(context.Background(), temporalClient, "order-A-17", "",
		infergate.ToolOutcome{CallID: "call_2", Output: "the order was never delivered: no refund", Refused: true})
	if err != nil {
		log.Fatal(err)
	}
}
