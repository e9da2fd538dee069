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

	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

// A react agent on the gateway: the model calls a tool, reads its result and answers. Here the
// gateway is the offline fake, scripted to ask for the weather and then to answer with it; a
// program passes infergate.NewClient() instead.
func ExampleNewChatModel() {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}},
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
		ToolCallingModel: chat,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{weather}},
	})
	if err != nil {
		log.Fatal(err)
	}
	answer, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("Weather in Rome?")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer.Content)
	// Output: In Rome: sunny, 24 °C.
}
