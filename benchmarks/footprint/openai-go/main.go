// Command openai-go streams one completion with github.com/openai/openai-go and prints it: the
// footprint of a minimal streaming program. Usage: openai-go [base URL]; the API key comes from
// INFERGATE_API_KEY.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() {
	opts := []option.RequestOption{option.WithAPIKey(os.Getenv("INFERGATE_API_KEY"))}
	if len(os.Args) > 1 {
		opts = append(opts, option.WithBaseURL(os.Args[1]))
	}
	client := openai.NewClient(opts...)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "llama-3.3-70b",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hello!")},
	})
	defer stream.Close()
	for stream.Next() {
		if chunk := stream.Current(); len(chunk.Choices) > 0 {
			fmt.Print(chunk.Choices[0].Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println()
}
