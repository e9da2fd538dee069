package tokens_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/tokens"
)

// The prompt tokens a node bills for a conversation, before it is sent.
func ExampleCountPrompt() {
	msgs := []infergate.Message{
		infergate.SystemMessage("Answer in one word."),
		infergate.UserMessageParts(infergate.TextPart("What is this?"), infergate.ImageURLPart("https://example.com/cat.png")),
	}
	fmt.Println(tokens.CountPrompt(msgs))
	// Output: 17
}

func ExampleCountText() {
	fmt.Println(tokens.CountText("hello world"))
	// Output: 2
}

// The context guard counting as the nodes bill: a request for a model whose window it exceeds is
// refused before anything is sent.
func ExampleCountPrompt_contextGuard() {
	gw := gatewaytest.NewServer(gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "venice-uncensored", ContextLength: 32_768}))
	defer gw.Close()
	client := gw.Client(infergate.WithContextGuard(), infergate.WithTokenCounter(tokens.CountPrompt))

	req := infergate.ChatRequest{Model: "venice-uncensored",
		Messages: []infergate.Message{infergate.UserMessage(strings.Repeat("word ", 40_000))}}
	_, err := client.Chat.Create(context.Background(), req)
	var tooLong *infergate.ContextWindowError
	if errors.As(err, &tooLong) {
		fmt.Printf("%d tokens do not fit in %d\n", tooLong.Input, tooLong.Limit)
	}
	// Output: 40005 tokens do not fit in 32768
}
