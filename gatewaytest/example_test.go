package gatewaytest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// A test scripts the next reply, injects one failure first, and checks what
// its code sent.
func Example() {
	s := gatewaytest.NewServer()
	defer s.Close()
	s.FailNext(1, gatewaytest.RateLimitErrorReply(time.Second).On("/api/v1/chat/completions"))
	s.Enqueue(gatewaytest.Reply{Content: "Paris"})

	post := func() (int, string) {
		req, _ := http.NewRequest("POST", s.URL()+"/api/v1/chat/completions",
			strings.NewReader(`{"model":"llama-3.3-70b","messages":[{"role":"user","content":"Capital of France?"}]}`))
		req.Header.Set("Authorization", "Bearer "+gatewaytest.DefaultAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, _ := post()
	fmt.Println(status)
	status, body := post()
	fmt.Println(status, strings.Contains(body, `"content":"Paris"`))
	last, _ := s.LastRequest()
	fmt.Println(last.JSON["model"], len(s.Requests()))
	// Output:
	// 429
	// 200 true
	// llama-3.3-70b 2
}

// Quirks reproduce what real providers do to streams.
func ExampleQuirks() {
	s := gatewaytest.NewServer(gatewaytest.WithChunkSize(3))
	defer s.Close()
	s.Enqueue(gatewaytest.Reply{
		ToolCalls: []gatewaytest.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`}},
		Quirks:    gatewaytest.Quirks{EmptyArgsFirst: true, BlankIDs: true, NoDone: true, NoUsageChunk: true},
	})
	req, _ := http.NewRequest("POST", s.URL()+"/api/v1/chat/completions",
		strings.NewReader(`{"stream":true,"messages":[{"role":"user","content":"weather?"}]}`))
	req.Header.Set("Authorization", "Bearer "+gatewaytest.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		var chunk struct {
			Choices []struct {
				Delta struct {
					ToolCalls json.RawMessage `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &chunk) == nil &&
			len(chunk.Choices) > 0 && chunk.Choices[0].Delta.ToolCalls != nil {
			fmt.Println(string(chunk.Choices[0].Delta.ToolCalls))
		}
	}
	// Output:
	// [{"function":{"name":"weather"},"id":"call_1","index":0,"type":"function"}]
	// [{"function":{"arguments":"{}"},"id":"","index":0,"type":""}]
	// [{"function":{"arguments":"{\"city\":\"Paris\"}"},"id":"","index":0,"type":""}]
}

// A demo server answers every question with a standing responder, however many come, instead of
// the replies a test queues one by one.
func ExampleWithResponder() {
	s := gatewaytest.NewServer(gatewaytest.WithResponder(func(r gatewaytest.Request) gatewaytest.Reply {
		turns := r.Turns()
		question := turns[len(turns)-1].Content
		return gatewaytest.Reply{Content: "You asked " + strings.ToLower(question) + " The answer is 42."}
	}))
	defer s.Close()
	for _, q := range []string{"What is six times seven?", "What is the meaning of life?"} {
		resp, err := s.Client().Chat.Create(context.Background(), infergate.ChatRequest{
			Messages: []infergate.Message{infergate.UserMessage(q)}})
		if err != nil {
			panic(err)
		}
		fmt.Println(resp.Text())
	}
	// Output:
	// You asked what is six times seven? The answer is 42.
	// You asked what is the meaning of life? The answer is 42.
}
