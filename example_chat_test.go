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
	fmt.Println(resp.Text(), resp.FinishReason())
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
		Tools: []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "weather", Description: "Current weather in a city", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
		}}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for range stream.All() {
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	for _, call := range stream.Message().ToolCalls {
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
	answer := acc.Completion()
	fmt.Printf("%s | %s | %s\n", answer.Reasoning(), answer.Text(), answer.FinishReason())
	// Output: Paris is well known.  | Paris. | stop
}

func ExampleChatStream_Message() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.Enqueue(gatewaytest.Reply{Reasoning: "A well-known capital.", Content: "Paris."})
	gw.Enqueue(gatewaytest.Reply{Respond: func(conversation []gatewaytest.Turn) gatewaytest.Reply {
		earlier := conversation[1] // the assistant turn the client appended
		return gatewaytest.Reply{Content: fmt.Sprintf("Rome (after %q, thinking %q).", earlier.Content, earlier.Reasoning)}
	}})
	client := gw.Client()

	conversation := []infergate.Message{}
	ask := func(question string) {
		conversation = append(conversation, infergate.UserMessage(question))
		stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{Messages: conversation})
		if err != nil {
			log.Fatal(err)
		}
		defer stream.Close()
		var thinking string
		for stream.Next() {
			chunk := stream.Current()
			thinking += chunk.Reasoning()
			fmt.Print(chunk.Text())
			for _, call := range chunk.ToolCalls() {
				fmt.Print("[calling ", call.Function.Name, "]")
			}
		}
		if err := stream.Err(); err != nil {
			log.Fatal(err)
		}
		fmt.Printf(" (thought: %q)\n", thinking)
		conversation = append(conversation, stream.Message()) // the answer, ready for the next turn
	}
	ask("What is the capital of France?")
	ask("And of Italy?")
	fmt.Println(len(conversation), "messages, the last from", conversation[3].Role)
	// Output:
	// Paris. (thought: "A well-known capital.")
	// Rome (after "Paris.", thinking "A well-known capital."). (thought: "")
	// 4 messages, the last from assistant
}
