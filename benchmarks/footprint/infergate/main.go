// Command infergate streams one completion with this SDK and prints it: the footprint of a minimal
// streaming program. Usage: infergate [base URL]; the API key comes from INFERGATE_API_KEY.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/infergate/infergate-go"
)

func main() {
	var opts []infergate.Option
	if len(os.Args) > 1 {
		opts = append(opts, infergate.WithBaseURL(os.Args[1]))
	}
	client, err := infergate.NewClient(opts...)
	if err != nil {
		log.Fatal(err)
	}
	stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("Hello!")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	for stream.Next() {
		fmt.Print(stream.Current().Text())
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println()
}
