package einoinfergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

// The message says which model answered, and which failed before it. Here the fake gateway's
// llama-3.3-70b is down and qwen2.5-vl-72b is its fallback.
func ExampleChatModel_Generate_fallbacks() {
	srv := gatewaytest.NewServer(gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageProviderError),
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "Hello from the fallback."}))
	defer srv.Close()
	chat, err := einoinfergate.NewChatModel(srv.Client(), "llama-3.3-70b", einoinfergate.WithoutRetries(),
		einoinfergate.WithCallOptions(infergate.WithFallbackModels("qwen2.5-vl-72b")))
	if err != nil {
		log.Fatal(err)
	}
	msg, err := chat.Generate(context.Background(), []*schema.Message{schema.UserMessage("Hi!")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(msg.Content)
	fmt.Println("served by", msg.Extra["model"])
	fallbacks, _ := msg.Extra["fallbacks"].([]map[string]any)
	for _, f := range fallbacks {
		fmt.Println(f["model"], "failed:", f["error"])
	}
	// Output:
	// Hello from the fallback.
	// served by qwen2.5-vl-72b
	// llama-3.3-70b failed: infergate: 502 Bad Gateway: provider_error: provider request failed: the model is unavailable (request 00000001)
}

// A streaming react agent whose model writes a sentence before its tool call: with eino's default
// checker the sentence would be the answer and the tool would never run.
func ExampleStreamToolCallChecker() {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(
		gatewaytest.Reply{Content: "Let me look that up.",
			ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}},
		gatewaytest.Reply{Respond: func(turns []gatewaytest.Turn) gatewaytest.Reply {
			return gatewaytest.Reply{Content: "In Rome: " + turns[len(turns)-1].Content + "."}
		}},
	))
	defer srv.Close()
	ctx := context.Background()

	chat, err := einoinfergate.NewChatModel(srv.Client(), "llama-3.3-70b")
	if err != nil {
		log.Fatal(err)
	}
	weather, err := utils.InferTool("weather", "The weather in a city.",
		func(_ context.Context, in struct{ City string }) (string, error) { return "sunny, 24 °C", nil })
	if err != nil {
		log.Fatal(err)
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel:      chat,
		ToolsConfig:           compose.ToolsNodeConfig{Tools: []tool.BaseTool{weather}},
		StreamToolCallChecker: einoinfergate.StreamToolCallChecker,
	})
	if err != nil {
		log.Fatal(err)
	}
	stream, err := agent.Stream(ctx, []*schema.Message{schema.UserMessage("Weather in Rome?")})
	if err != nil {
		log.Fatal(err)
	}
	answer, err := schema.ConcatMessageStream(stream)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer.Content)
	// Output: In Rome: sunny, 24 °C.
}
