package infergate_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Options given to a method override the client's for that call only: one client serves every
// tenant.
func ExampleOption_perCall() {
	gw := gatewaytest.NewServer(gatewaytest.WithAcceptedAPIKey("sk-tenant-b"))
	defer gw.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(gw.URL()), infergate.WithAPIKey("sk-tenant-a"))
	if err != nil {
		log.Fatal(err)
	}
	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("hello")}}
	_, err = client.Chat.Create(context.Background(), req, infergate.WithMaxRetries(0))
	fmt.Println("tenant a:", err)
	resp, err := client.Chat.Create(context.Background(), req,
		infergate.WithAPIKey("sk-tenant-b"), infergate.WithTimeout(30*time.Second))
	fmt.Println("tenant b:", resp.Text(), err)
	// Output:
	// tenant a: infergate: 401 Unauthorized: Invalid API key (request 00000001)
	// tenant b: This is the fake gateway's answer to "hello": a real model would answer here. <nil>
}

// A middleware sees every attempt, retries included: the hook for tracing and metrics.
func ExampleWithMiddleware() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.FailNext(1, gatewaytest.DetailErrorReply(503, "busy").WithRetryAfter(time.Millisecond))
	attempts := 0
	count := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		attempts++
		resp, err := next(req)
		if err == nil {
			fmt.Println("attempt", attempts, req.Method, req.URL.Path, resp.StatusCode)
		}
		return resp, err
	}
	client := gw.Client(infergate.WithMiddleware(count))
	if _, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("hi")},
	}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// attempt 1 POST /api/v1/chat/completions 503
	// attempt 2 POST /api/v1/chat/completions 200
}

// WithResponseInfo hands back what the server said besides the answer: status, request id and the
// rate limits it announced.
func ExampleWithResponseInfo() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	var info infergate.ResponseInfo
	_, err := gw.Client().Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("hi")},
	}, infergate.WithResponseInfo(&info))
	if err != nil {
		log.Fatal(err)
	}
	rl := info.RateLimits // nil when the server announces none
	fmt.Println(info.StatusCode, info.RequestID)
	fmt.Println(rl.RemainingRequests, "of", rl.LimitRequests, "requests left until", rl.ResetRequests.Format(time.RFC3339))
	// Output:
	// 200 00000001
	// 499 of 500 requests left until 2025-10-15T12:35:56Z
}

// WithThinkTags reads the reasoning that DeepSeek-R1 and Qwen3 write into their text as
// <think>…</think> into Reasoning, in a stream's deltas as in a whole answer.
func ExampleWithThinkTags() {
	gw := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{
		Chunks: []string{"<think>\nThe user", " greets me.\n</th", "ink>\n\n", "Hello!"},
	}))
	defer gw.Close()
	client := gw.Client(infergate.WithThinkTags())
	stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("hi")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	for stream.Next() {
		if r := stream.Current().Reasoning(); r != "" {
			fmt.Printf("thinking: %q\n", r)
		}
		if text := stream.Current().Text(); text != "" {
			fmt.Printf("answer: %q\n", text)
		}
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// thinking: "\nThe user"
	// thinking: " greets me.\n"
	// answer: "Hello!"
}
