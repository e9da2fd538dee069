package tokens_test

import (
	"fmt"

	"github.com/infergate/infergate-go"
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
