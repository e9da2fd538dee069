package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ExampleWithContextGuard() {
	// A catalogue whose models say their context windows, in tokens.
	gw := gatewaytest.NewServer(gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "venice-uncensored", ContextLength: 32_768},
		gatewaytest.CatalogModel{ID: "llama-3.3-70b", ContextLength: 131_072}),
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "A long story, in short."}))
	defer gw.Close()
	client := gw.Client(infergate.WithContextGuard())

	// About 50,000 tokens of input, as the gateway estimates them, and room for 4,000 more.
	req := infergate.ChatRequest{Model: "venice-uncensored", MaxTokens: infergate.Ptr(4000),
		Messages: []infergate.Message{infergate.UserMessage("Summarise: " + strings.Repeat("word ", 40_000))}}
	_, err := client.Chat.Create(context.Background(), req)
	var tooLong *infergate.ContextWindowError
	if errors.As(err, &tooLong) {
		fmt.Printf("%s holds %d tokens; the request needs %d + %d\n", tooLong.Model, tooLong.Limit, tooLong.Input, tooLong.MaxTokens)
	}

	// With a fallback, the model too small is passed over, and nothing was sent to it.
	var info infergate.ResponseInfo
	answer, err := client.Chat.Create(context.Background(), req,
		infergate.WithFallbackModels("llama-3.3-70b"), infergate.WithResponseInfo(&info))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer.Text(), "(from", answer.Model+"; passed over:", info.Fallbacks[0].Model+")")
	// Output:
	// venice-uncensored holds 32768 tokens; the request needs 50002 + 4000
	// A long story, in short. (from llama-3.3-70b; passed over: venice-uncensored)
}

func ExampleToolLoop_compact() {
	gw := gatewaytest.NewServer(gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "venice-uncensored", ContextLength: 32_768}),
		gatewaytest.WithReplies(
			gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "fetch_page", Arguments: `{"url":"https://example.com"}`}}},
			gatewaytest.Reply{Content: "The page is long."}))
	defer gw.Close()
	client := gw.Client(infergate.WithContextGuard())

	fetchPage, err := infergate.NewTool("fetch_page", "Returns a web page's text.",
		func(_ context.Context, in struct {
			URL string `json:"url"`
		}) (string, error) {
			return strings.Repeat("lorem ipsum ", 20_000), nil // about 60,000 tokens
		})
	if err != nil {
		log.Fatal(err)
	}
	loop := infergate.ToolLoop{Tools: []*infergate.FuncTool{fetchPage},
		// The caller's policy: cut tool results down until the transcript fits.
		Compact: func(_ context.Context, msgs []infergate.Message, limit int) ([]infergate.Message, error) {
			for i := range msgs {
				if msgs[i].Role == infergate.RoleTool && len(msgs[i].Content) > limit {
					msgs[i].Content = msgs[i].Content[:limit] + " [cut]"
				}
			}
			return msgs, nil
		}}
	req := infergate.ChatRequest{Model: "venice-uncensored", Messages: []infergate.Message{infergate.UserMessage("How long is example.com?")}}
	res, err := client.Chat.RunTools(context.Background(), req, loop).Wait()
	if err != nil {
		log.Fatal(err) // a *ContextWindowError without Compact; a *CompactError if Compact could not help
	}
	fmt.Println(res.Answer.Text(), len(res.Messages[2].Content))
	// Output: The page is long. 32774
}
