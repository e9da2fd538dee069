// Stream-tools runs a complete tool-calling loop over streamed answers: the model asks for a tool,
// the program runs it and sends the result back, and the model answers with it.
//
//	go run ./examples/stream-tools
//
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set, and otherwise to an in-process fake.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// fake scripts the two turns of the fake gateway, with the stream quirks real providers have: the
// arguments come in small fragments after a placeholder "{}", and later fragments carry blank ids.
var fake = []gatewaytest.ServerOption{gatewaytest.WithReplies(
	gatewaytest.Reply{
		ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"city":"Lisbon"}`}},
		Quirks:    gatewaytest.Quirks{EmptyArgsFirst: true, BlankIDs: true, ArgChunkSize: 4},
	},
	gatewaytest.Reply{Content: "It is sunny in Lisbon, at 21 °C."},
)}

// weatherTool describes get_weather to the model; its parameters are a JSON Schema.
var weatherTool = infergate.Tool{Function: infergate.FunctionDefinition{Name: "get_weather", Description: "Current weather in a city.", Parameters: map[string]any{
	"type":       "object",
	"properties": map[string]any{"city": map[string]any{"type": "string"}},
	"required":   []string{"city"},
}}}

// maxTurns bounds the loop in case the model keeps asking for tools.
const maxTurns = 5

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, fake...)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, client *infergate.Client) error {
	messages := []infergate.Message{infergate.UserMessage("What is the weather like in Lisbon?")}
	for range maxTurns {
		answer, err := streamAnswer(ctx, out, client, messages)
		if err != nil {
			return err
		}
		if len(answer.ToolCalls) == 0 {
			return nil
		}
		// The model's turn, tool calls included, goes back with the results that answer it.
		messages = append(messages, answer)
		for _, call := range answer.ToolCalls {
			result := callTool(call.Function)
			fmt.Fprintf(out, "tool: %s(%s) = %s\n", call.Function.Name, call.Function.Arguments, result)
			messages = append(messages, infergate.ToolResultMessage(call.ID, result))
		}
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

// streamAnswer prints the answer's text as it arrives and returns the whole message, with its tool
// calls reassembled from their fragments.
func streamAnswer(ctx context.Context, out io.Writer, client *infergate.Client, messages []infergate.Message) (infergate.Message, error) {
	stream, err := client.Chat.Stream(ctx, infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: messages,
		Tools:    []infergate.Tool{weatherTool},
	})
	if err != nil {
		return infergate.Message{}, err
	}
	defer stream.Close()
	for stream.Next() {
		fmt.Fprint(out, stream.Current().Text())
	}
	if err := stream.Err(); err != nil {
		return infergate.Message{}, err
	}
	choices := stream.Completion().Choices
	if len(choices) == 0 {
		return infergate.Message{}, errors.New("the stream held no answer")
	}
	if choices[0].Message.Content != "" {
		fmt.Fprintln(out)
	}
	return choices[0].Message, nil
}

// callTool runs a function the model asked for. Failures go back to the model as the result, so
// that it can correct itself or explain.
func callTool(fn infergate.FunctionCall) string {
	if fn.Name != weatherTool.Function.Name {
		return `{"error":"no such tool"}`
	}
	var args struct{ City string }
	if err := json.Unmarshal([]byte(fn.Arguments), &args); err != nil || args.City == "" {
		return `{"error":"arguments must be {\"city\": \"...\"}"}`
	}
	result, _ := json.Marshal(weather(args.City))
	return string(result)
}

// weather stands in for a real weather service.
func weather(city string) map[string]any {
	return map[string]any{"city": city, "sky": "sunny", "temperature_c": 21}
}
