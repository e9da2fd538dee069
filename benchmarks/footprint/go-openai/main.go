// Command go-openai streams one completion with github.com/sashabaranov/go-openai and prints it:
// the footprint of a minimal streaming program. Usage: go-openai [base URL]; the API key comes from
// INFERGATE_API_KEY.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/sashabaranov/go-openai"
)

func main() {
	cfg := openai.DefaultConfig(os.Getenv("INFERGATE_API_KEY"))
	if len(os.Args) > 1 {
		cfg.BaseURL = os.Args[1]
	}
	client := openai.NewClientWithConfig(cfg)
	stream, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model:    "llama-3.3-70b",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Hello!"}},
		Stream:   true,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		if len(chunk.Choices) > 0 {
			fmt.Print(chunk.Choices[0].Delta.Content)
		}
	}
	fmt.Println()
}
