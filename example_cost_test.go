package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ExampleModelPrices_Cost() {
	gateway := gatewaytest.NewServer(gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "llama-3.3-70b", InputPricePerMillion: "0.70", OutputPricePerMillion: "2.50"}))
	defer gateway.Close()
	client := gateway.Client()

	model, err := client.Models.Get(context.Background(), "llama-3.3-70b")
	if err != nil {
		log.Fatal(err)
	}
	usage := infergate.Usage{PromptTokens: 1234, CompletionTokens: 567}
	fmt.Println(model.Prices.Cost(usage)) // exact: 1234 × 0.70 / 1e6 + 567 × 2.50 / 1e6

	// A call reports its own cost once the catalogue is cached, as Models.Get just did.
	var info infergate.ResponseInfo
	gateway.Enqueue(gatewaytest.Reply{Content: "Hi!", Usage: &gatewaytest.Usage{PromptTokens: 12, CompletionTokens: 3}})
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Hi!")}}
	if _, err := client.Chat.Create(context.Background(), req, infergate.WithResponseInfo(&info)); err != nil {
		log.Fatal(err)
	}
	fmt.Println(*info.Cost)
	// Output:
	// 0.0022813 USD
	// 0.0000159 USD
}

func ExampleToolLoop_maxCost() {
	gateway := gatewaytest.NewServer(gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "llama-3.3-70b", InputPricePerMillion: "0.70", OutputPricePerMillion: "2.50"}))
	defer gateway.Close()
	client := gateway.Client()

	// The model asks for the weather again and again, each turn costing more than the last.
	again := gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}}
	for _, prompt := range []int{1000, 2000, 3000} {
		again.Usage = &gatewaytest.Usage{PromptTokens: prompt, CompletionTokens: 100}
		gateway.Enqueue(again)
	}
	weather, err := infergate.NewTool("weather", "The weather in a city.",
		func(_ context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny in " + in.City, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Weather in Rome?")}}
	amount, err := infergate.ParseDecimal("0.002")
	if err != nil {
		log.Fatal(err)
	}
	limit := infergate.Money{Amount: amount, Currency: infergate.CurrencyUSD} // the gateway bills in USD
	_, err = client.Chat.RunTools(context.Background(), req, infergate.ToolLoop{
		Tools:   []*infergate.FuncTool{weather},
		MaxCost: limit,
	}).Wait()
	var stopped *infergate.ToolLimitError
	if errors.As(err, &stopped) && errors.Is(err, infergate.ErrToolCostLimit) {
		fmt.Printf("stopped after turn %d: %s spent, more than %s\n", stopped.Step, stopped.Spent, stopped.MaxCost)
		fmt.Println(len(stopped.Messages), "messages to continue from")
	}
	// Output:
	// stopped after turn 2: 0.0026 USD spent, more than 0.002 USD
	// 5 messages to continue from
}
