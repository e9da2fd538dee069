package infergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// A limiter admits every attempt within the key's quotas before it is sent, and waits for room
// rather than running into the gateway's 429s. Give the same limiter to every client of a process
// that uses the key; processes that share a key share a limiter through the redisinfergate module.
func ExampleNewLimiter() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	quotas := infergate.GatewayQuotas()
	if g, ok := quotas.Group("glm-5.1:web"); ok {
		fmt.Printf("glm-5.1:web is in group %s: %d requests a minute\n", g.Name, g.Quota.Requests)
	}
	client := gw.Client(infergate.WithLimiter(infergate.NewLimiter(quotas)))
	resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("hello")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
	// Output:
	// glm-5.1:web is in group L: 20 requests a minute
	// This is the fake gateway's answer to "hello": a real model would answer here.
}
