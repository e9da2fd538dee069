// Quickstart asks a model one question and prints the answer and the tokens it cost.
//
//	go run ./examples/quickstart
//
// It talks to the real gateway when INFERGATE_API_KEY is set, and otherwise to an in-process fake.
package main

import (
	"cmp"
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
	client, stop, err := connect(os.Stdout, fake...)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// connect returns a client for the real gateway when INFERGATE_API_KEY is set (INFERGATE_BASE_URL
// picks another address), and otherwise for an in-process fake gateway started with fake, so that
// the example runs anywhere, offline too. It says on out which one it talks to; stop shuts the fake
// down and does nothing for the real gateway.
func connect(out io.Writer, fake ...gatewaytest.ServerOption) (client *infergate.Client, stop func(), err error) {
	if os.Getenv("INFERGATE_API_KEY") != "" {
		client, err := infergate.NewClient()
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(out, "using the real gateway at", cmp.Or(os.Getenv("INFERGATE_BASE_URL"), infergate.DefaultBaseURL))
		return client, func() {}, nil
	}
	gw := gatewaytest.NewServer(fake...)
	fmt.Fprintln(out, "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)")
	return gw.Client(), gw.Close, nil
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
	// TokenUsage falls back to the gateway's own estimates when the provider sent no usage.
	usage := resp.TokenUsage()
	fmt.Fprintln(out, resp.Text())
	fmt.Fprintf(out, "(%s, %d prompt + %d completion tokens)\n", resp.Model, usage.PromptTokens, usage.CompletionTokens)
	return nil
}
