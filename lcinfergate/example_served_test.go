package lcinfergate_test

import (
	"context"
	"fmt"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

// Each choice's GenerationInfo says which model answered, and which failed before it. Here the
// fake gateway's llama-3.3-70b is down and qwen2.5-vl-72b is its fallback.
func ExampleLLM_GenerateContent_fallbacks() {
	s := gatewaytest.NewServer(gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageProviderError),
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "Hello from the fallback."}))
	defer s.Close()
	llm := lcinfergate.New(s.Client(), "llama-3.3-70b", lcinfergate.WithoutRetries(),
		lcinfergate.WithCallOptions(infergate.WithFallbackModels("qwen2.5-vl-72b")))
	resp, err := llm.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Hi!")})
	if err != nil {
		fmt.Println(err)
		return
	}
	info := resp.Choices[0].GenerationInfo
	fmt.Println(resp.Choices[0].Content)
	fmt.Println("served by", info["model"])
	fallbacks, _ := info["fallbacks"].([]map[string]any)
	for _, f := range fallbacks {
		fmt.Println(f["model"], "failed:", f["error"])
	}
	// Output:
	// Hello from the fallback.
	// served by qwen2.5-vl-72b
	// llama-3.3-70b failed: infergate: 502 Bad Gateway: provider_error: provider request failed: the model is unavailable (request 00000001)
}
