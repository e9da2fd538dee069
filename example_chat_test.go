package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ExampleChatService_Create() {
	gw := gatewaytest.NewServer() // stands in for the real gateway; drop it and WithBaseURL in real code
	defer gw.Close()
	gw.Enqueue(gatewaytest.Reply{Content: "Paris."})

	client, err := infergate.NewClient(infergate.WithBaseURL(gw.URL()), infergate.WithAPIKey(gatewaytest.DefaultAPIKey))
	if err != nil {
		log.Fatal(err)
	}
	resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
		Model: "llama-3.3-70b",
		Messages: []infergate.Message{
			infergate.SystemMessage("Answer in one word."),
			infergate.UserMessage("What is the capital of France?"),
		},
		Temperature: infergate.Ptr(0.0),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text(), resp.Choices[0].FinishReason)
	// Output: Paris. stop
}

func ExampleChatService_Stream() {
	gw := gatewaytest.NewServer(gatewaytest.WithChunkSize(5))
	defer gw.Close()
	gw.Enqueue(gatewaytest.Reply{Content: "Streaming works."})
	client := gw.Client()

	stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("Say something.")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	for stream.Next() {
		fmt.Print(stream.Current().Text())
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println()
	// Output: Streaming works.
}

func ExampleChatStream_Completion() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	// A provider that sends a placeholder "{}" before the real arguments, and no [DONE].
	gw.Enqueue(gatewaytest.Reply{
		ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Paris"}`}},
		Quirks:    gatewaytest.Quirks{EmptyArgsFirst: true, BlankIDs: true, NoDone: true},
	})
	client := gw.Client()

	stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("Weather in Paris?")},
		Tools: []infergate.Tool{infergate.FunctionTool("weather", "Current weather in a city", map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
		})},
	})
	if err != nil {
		log.Fatal(err)
	}
	for range stream.All() {
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	for _, call := range stream.Completion().Choices[0].Message.ToolCalls {
		fmt.Println(call.Function.Name, call.Function.Arguments)
	}
	// Output: weather {"city":"Paris"}
}

func ExampleAPIError() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.FailNext(1, gatewaytest.DetailErrorReply(401, "Invalid API key"))
	client := gw.Client()

	_, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("hi")},
	})
	var apiErr *infergate.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Message, errors.Is(err, infergate.ErrUnauthorized))
	}
	// Output: 401 Invalid API key true
}

func ExampleChatAccumulator() {
	recorded := []string{ // the data of each event, as a proxy or a recording has them
		`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Paris is well known. "}}]}`,
		`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Paris"}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"."},"finish_reason":"stop"}]}`,
	}
	var acc infergate.ChatAccumulator
	for _, data := range recorded {
		var chunk infergate.ChatCompletionChunk
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			log.Fatal(err)
		}
		acc.Add(chunk)
	}
	answer := acc.Completion().Choices[0]
	fmt.Printf("%s | %s | %s\n", answer.Message.Reasoning, answer.Message.Content, answer.FinishReason)
	// Output: Paris is well known.  | Paris. | stop
}
