package lcinfergate_test

import (
	"context"
	"fmt"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"
)

// A tool turn, offline on the fake gateway: the model calls a tool, the answer is copied into the
// history the langchaingo way, and the next answer streams. The model's reasoning goes back with
// its call without the history holding it.
func Example() {
	s := gatewaytest.NewServer(gatewaytest.WithReplies(
		gatewaytest.Reply{Reasoning: "I need the weather.",
			ToolCalls: []gatewaytest.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		gatewaytest.Reply{Content: "Sunny in Paris, 21°C."},
	))
	defer s.Close()
	client := s.Client() // in a program: infergate.NewClient()

	llm := lcinfergate.New(client, "llama-3.3-70b")
	ctx := context.Background()
	tools := llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{
		Name: "get_weather", Description: "The weather in a city.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
	}}})
	history := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := llm.GenerateContent(ctx, history, tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.Choices[0].ToolCalls[0]
	fmt.Println(call.FunctionCall.Name, call.FunctionCall.Arguments, "because:", resp.Choices[0].ReasoningContent)

	history = append(history,
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: call.ID, Name: "get_weather", Content: "sunny, 21°C"}}})
	_, err = llm.GenerateContent(ctx, history, tools, llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		fmt.Print(string(chunk))
		return nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println()
	// Output:
	// get_weather {"city":"Paris"} because: I need the weather.
	// Sunny in Paris, 21°C.
}

// The same LLM embeds texts for langchaingo's vector stores.
func ExampleLLM_CreateEmbedding() {
	s := gatewaytest.NewServer()
	defer s.Close()
	embedder, err := embeddings.NewEmbedder(lcinfergate.New(s.Client(), "llama-3.3-70b", lcinfergate.WithEmbeddingModel("bge-m3")))
	if err != nil {
		fmt.Println(err)
		return
	}
	vectors, err := embedder.EmbedDocuments(context.Background(), []string{"sunny in Paris", "rain in Oslo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(vectors), len(vectors[0]))
	// Output:
	// 2 64
}
