package mcptools_test

import (
	"context"
	"fmt"
	"log"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/mcptools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type timeIn struct {
	Zone string `json:"zone" jsonschema:"an IANA time zone, e.g. Europe/Oslo"`
}

type timeOut struct {
	Time string `json:"time"`
}

func ExampleFromSession() {
	ctx := context.Background()
	// An MCP server with one tool, in this process; a real one is reached with mcp.CommandTransport
	// or mcp.StreamableClientTransport.
	server := mcp.NewServer(&mcp.Implementation{Name: "clock", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "time.now", Description: "The time in a zone."},
		func(_ context.Context, _ *mcp.CallToolRequest, in timeIn) (*mcp.CallToolResult, timeOut, error) {
			return nil, timeOut{Time: "12:00 in " + in.Zone}, nil
		})
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer serverSession.Wait()
	defer session.Close()

	tools, err := mcptools.FromSession(ctx, session, mcptools.WithPrefix("clock_"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tools[0].Name()) // "time.now" is no valid function name

	gw := gatewaytest.NewServer() // the fake gateway plays the model
	defer gw.Close()
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "clock_time_now", Arguments: `{"zone":"Europe/Oslo"}`}}},
		gatewaytest.Reply{Respond: func(conversation []gatewaytest.Turn) gatewaytest.Reply {
			return gatewaytest.Reply{Content: "The tool said " + conversation[len(conversation)-1].Content}
		}})
	res, err := gw.Client().Chat.RunTools(ctx, infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("What time is it in Oslo?")},
	}, infergate.ToolLoop{Tools: tools}).Wait()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Answer.Text())
	// Output:
	// clock_time_now
	// The tool said {"time":"12:00 in Europe/Oslo"}
}
