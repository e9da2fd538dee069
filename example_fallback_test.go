package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

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

func ExampleWithModelCooldown() {
	// The fake gateway's llama-3.3-70b is down. The first call spends its retries on it before
	// falling back; for the next minute, the client's calls skip it. WithCooldownStore would share
	// that with the other processes of a fleet.
	gw := gatewaytest.NewServer(gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageProviderError))
	defer gw.Close()
	client := gw.Client(infergate.WithFallbackModels("qwen2.5-vl-72b"), infergate.WithModelCooldown(time.Minute))

	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Hi!")}}
	for call := 1; call <= 3; call++ {
		var info infergate.ResponseInfo
		answer, err := client.Chat.Create(context.Background(), req, infergate.WithResponseInfo(&info))
		if err != nil {
			log.Fatal(err)
		}
		for _, f := range info.Fallbacks {
			fmt.Printf("call %d: %s: %v (cooling: %t)\n", call, f.Model, f.Err, errors.Is(f.Err, infergate.ErrModelCooling))
		}
		fmt.Printf("call %d: served by %s\n", call, answer.Model)
	}
	sent := 0
	for _, r := range gw.Requests() {
		if r.JSON["model"] == "llama-3.3-70b" {
			sent++
		}
	}
	fmt.Println("requests sent to llama-3.3-70b:", sent)
	// Output:
	// call 1: llama-3.3-70b: infergate: 502 Bad Gateway after 3 attempts: provider_error: provider request failed: the model is unavailable (request 00000003) (cooling: false)
	// call 1: served by qwen2.5-vl-72b
	// call 2: llama-3.3-70b: infergate: skipped: the model is cooling after a failure (cooling: true)
	// call 2: served by qwen2.5-vl-72b
	// call 3: llama-3.3-70b: infergate: skipped: the model is cooling after a failure (cooling: true)
	// call 3: served by qwen2.5-vl-72b
	// requests sent to llama-3.3-70b: 3
}
