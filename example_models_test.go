package infergate_test

import (
	"context"
	"errors"
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

func ExampleModel_Can() {
	gateway := gatewaytest.NewServer(gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "kimi-k2.6"},
		gatewaytest.CatalogModel{ID: "glm-5.1:web"},
	))
	defer gateway.Close()
	client := gateway.Client()

	models, err := client.Models.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range models {
		fmt.Printf("%-12s window %7d  tools %-5v vision %-5v web search %-5v $%s in, $%s out per 1M tokens\n",
			m.ID, m.ContextLength, m.Can(infergate.CapabilityTools), m.Can(infergate.CapabilityVision),
			m.Can(infergate.CapabilityWebSearch), m.Prices.Input.Amount, m.Prices.Output.Amount)
	}
	fmt.Println("window from:", models[0].Sources.ContextLength)
	// Output:
	// kimi-k2.6    window  256000  tools true  vision true  web search false $0.5 in, $3.25 out per 1M tokens
	// glm-5.1:web  window  200000  tools true  vision false web search true  $1.5 in, $5 out per 1M tokens
	// window from: table 2026-07-23: api-gateway-docs documentation/models.mdx@adc92e8 (2026-06-10)
}

func ExampleModelsService_Resolve() {
	gateway := modelsGateway()
	defer gateway.Close()
	client := gateway.Client()
	ctx := context.Background()

	m, err := client.Models.Resolve(ctx, "Llama 3.3 70B") // the gateway's slug of a name
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.ID)

	// A near miss: the gateway would refuse it, naming the models it finds close.
	_, err = client.Models.Resolve(ctx, "llama-3.3-70b-instruct")
	var notFound *infergate.ModelNotFoundError
	if errors.As(err, &notFound) {
		fmt.Println("did you mean", notFound.Suggestions)
	}

	// A name close to none: the gateway would serve it with its default model, silently.
	_, err = client.Models.Resolve(ctx, "gpt-4o")
	fmt.Println(errors.Is(err, infergate.ErrNotFound), err)
	// Output:
	// llama-3.3-70b
	// did you mean [llama-3.3-70b]
	// true infergate: model "gpt-4o" is not in the catalogue
}
