package infergate_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/infergate/infergate-go"
)

// modelsGateway stands in for the deployed gateway: its catalogue lives at /api/v1/models, and the
// contract's /api/v1/chat/models answers 404.
func modelsGateway() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[
			{"id":"llama-3.3-70b","blockchainID":"0x1111111111111111111111111111111111111111111111111111111111111111","created":1736000000,"tags":["chat"],"modelType":"LLM"},
			{"id":"glm-5.1:web","blockchainID":"0x2222222222222222222222222222222222222222222222222222222222222222","created":1737000000,"tags":["web"],"modelType":"LLM"},
			{"id":"whisper-1","blockchainID":"0x3333333333333333333333333333333333333333333333333333333333333333","created":1738000000,"tags":[],"modelType":"STT"}]}`)
	})
	return httptest.NewServer(mux)
}

func ExampleModelsService_List() {
	srv := modelsGateway()
	defer srv.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}

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
	srv := modelsGateway()
	defer srv.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}

	m, err := client.Models.Get(context.Background(), "Llama-3.3-70B") // names are case-insensitive
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.ID, m.BlockchainID[:10]+"…")
	// Output: llama-3.3-70b 0x11111111…
}

func ExampleIsHexID() {
	fmt.Println(infergate.IsHexID("0x2222222222222222222222222222222222222222222222222222222222222222"))
	fmt.Println(infergate.IsHexID("llama-3.3-70b"))
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
