package genkitinfergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/genkitinfergate"
)

// The response's message says which model answered, and which failed before it. Here the fake
// gateway's llama-3.3-70b is down and qwen2.5-vl-72b is its fallback.
func ExampleNew_fallbacks() {
	srv := gatewaytest.NewServer(gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageProviderError),
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "Hello from the fallback."}))
	defer srv.Close()
	// genkit.Init watches for interrupts until its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	g := genkit.Init(ctx, genkit.WithPlugins(genkitinfergate.New(srv.Client(), genkitinfergate.WithoutRetries(),
		genkitinfergate.WithCallOptions(infergate.WithFallbackModels("qwen2.5-vl-72b")))))
	resp, err := genkit.Generate(ctx, g, ai.WithModelName("infergate/llama-3.3-70b"), ai.WithPrompt("Hi!"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
	fmt.Println("served by", resp.Message.Metadata["model"])
	fallbacks, _ := resp.Message.Metadata["fallbacks"].([]map[string]any)
	for _, f := range fallbacks {
		fmt.Println(f["model"], "failed:", f["error"])
	}
	// Output:
	// Hello from the fallback.
	// served by qwen2.5-vl-72b
	// llama-3.3-70b failed: infergate: 502 Bad Gateway: provider_error: provider request failed: the model is unavailable (request 00000001)
}
