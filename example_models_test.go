package infergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// modelsGateway is a fake gateway with three models in its catalogue.
func modelsGateway() *gatewaytest.Server {
	return gatewaytest.NewServer(gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "llama-3.3-70b", BlockchainID: "0x1111111111111111111111111111111111111111111111111111111111111111", Created: 1736000000, Tags: []string{"chat"}},
		gatewaytest.CatalogModel{ID: "glm-5.1:web", Created: 1737000000, Tags: []string{"web"}},
		gatewaytest.CatalogModel{ID: "whisper-1", Created: 1738000000, ModelType: "STT"},
	))
}

func ExampleModelsService_List() {
	gateway := modelsGateway()
	defer gateway.Close()
	client := gateway.Client()

	models, err := client.Models.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range models {
		fmt.Printf("%-14s %-4s web search: %v\n", m.ID, m.Type, m.IsWebSearch())
	}
	// Output:
	// llama-3.3-70b  LLM  web search: false
	// glm-5.1:web    LLM  web search: true
	// whisper-1      STT  web search: false
}

func ExampleModelsService_Get() {
	gateway := modelsGateway()
	defer gateway.Close()
	client := gateway.Client()

	m, err := client.Models.Get(context.Background(), "Llama-3.3-70B") // names are case-insensitive
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.ID, m.BlockchainID[:10]+"…")
	// Output: llama-3.3-70b 0x11111111…
}

func ExampleIsBlockchainID() {
	fmt.Println(infergate.IsBlockchainID("0x2222222222222222222222222222222222222222222222222222222222222222"))
	fmt.Println(infergate.IsBlockchainID("llama-3.3-70b"))
	// Output:
	// true
	// false
}

func ExampleWebSearchVariant() {
	fmt.Println(infergate.WebSearchVariant("glm-5.1"))
	fmt.Println(infergate.WebSearchVariant("glm-5.1:web"))
	// Output:
	// glm-5.1:web
	// glm-5.1:web
}
