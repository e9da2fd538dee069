package gatewaytest_test

import (
	"context"
	"fmt"
	"log"
	"os"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// A program that runs anywhere: on the real gateway when INFERGATE_API_KEY is set, else on a fake
// that plays the model. (This example passes an empty environment, so it always uses the fake.)
func ExampleConnect() {
	noKey := func(string) string { return "" } // a program passes os.Getenv
	client, stop, err := gatewaytest.Connect(os.Stdout, noKey,
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "Lisbon."}))
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("Capital of Portugal?")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
	// Output:
	// using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
	// Lisbon.
}
