package infergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ExampleWithFallbackModels() {
	// The fake gateway's llama-3.3-70b is down: every stream for it fails in-band before its first
	// delta, as the deployed gateway's do once all of the model's providers failed.
	gw := gatewaytest.NewServer(
		gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageRetryFailed),
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "Hello from the fallback."}))
	defer gw.Close()
	client := gw.Client(infergate.WithFallbackModels("qwen2.5-vl-72b", "llama-3.3-70b:web"))

	var info infergate.ResponseInfo
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Hi!")}}
	stream, err := client.Chat.Stream(context.Background(), req, infergate.WithResponseInfo(&info))
	if err != nil {
		log.Fatal(err) // a *FallbackError when every model failed
	}
	defer stream.Close()
	for stream.Next() {
		fmt.Print(stream.Current().Text())
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println()
	for _, f := range info.Fallbacks {
		fmt.Printf("%s failed: %v\n", f.Model, f.Err)
	}
	fmt.Println("served by", stream.Completion().Model)
	// Output:
	// Hello from the fallback.
	// llama-3.3-70b failed: infergate: error in stream (status 502): retry_failed: all providers of the model failed
	// served by qwen2.5-vl-72b
}
