package genkitinfergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/genkitinfergate"
)

// genkit on the gateway: the model calls a tool, genkit runs it and sends its result back, and
// the model answers. Here the gateway is the offline fake, scripted to ask for the weather and
// then to answer with it; a program passes infergate.NewClient() instead.
func ExampleNew() {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}},
		gatewaytest.Reply{Respond: func(turns []gatewaytest.Turn) gatewaytest.Reply {
			return gatewaytest.Reply{Content: "In Rome: " + turns[len(turns)-1].Content + "."}
		}},
	))
	defer srv.Close()
	// genkit.Init watches for interrupts until its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	g := genkit.Init(ctx, genkit.WithPlugins(genkitinfergate.New(srv.Client())))
	type place struct {
		City string `json:"city"`
	}
	weather := genkit.DefineTool(g, "weather", "The weather in a city.",
		func(_ *ai.ToolContext, in place) (string, error) { return "sunny, 24 °C", nil })
	answer, err := genkit.GenerateText(ctx, g, ai.WithModelName("infergate/llama-3.3-70b"),
		ai.WithPrompt("Weather in Rome?"), ai.WithTools(weather))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
	// Output: In Rome: sunny, 24 °C.
}
