// Quickstart asks a model one question and prints the answer and the tokens it cost.
//
//	go run ./examples/quickstart
//
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set, and otherwise to an in-process fake.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// fake is what the fake gateway answers in place of a model.
var fake = []gatewaytest.ServerOption{gatewaytest.WithReplies(gatewaytest.Reply{
	Content: "The capital of Portugal is Lisbon.",
})}

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, fake...)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, client *infergate.Client) error {
	resp, err := client.Chat.Create(ctx, infergate.ChatRequest{
		Model: "llama-3.3-70b",
		Messages: []infergate.Message{
			infergate.SystemMessage("Answer in one short sentence."),
			infergate.UserMessage("What is the capital of Portugal?"),
		},
		Temperature: infergate.Ptr(0.2),
	})
	if err != nil {
		return err
	}
	// UsageOrEstimate falls back to the gateway's own estimates when the provider sent no usage.
	usage := resp.UsageOrEstimate()
	fmt.Fprintln(out, resp.Text())
	fmt.Fprintf(out, "(%s, %d prompt + %d completion tokens)\n", resp.Model, usage.PromptTokens, usage.CompletionTokens)
	return nil
}
