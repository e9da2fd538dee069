package gatewaytest_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// The fake enforces the gateway's limits: here an L-like group of 2 requests a minute. The third
// request of the window is refused as the gateway refuses it, and the client reads what is left
// from every answer.
func ExampleWithRateLimits() {
	quotas := infergate.Quotas{Groups: []infergate.QuotaGroup{{Name: "L", Models: []string{"glm-5"},
		Quota: infergate.Quota{Requests: 2, Tokens: 500_000, Window: time.Minute}}}}
	s := gatewaytest.NewServer(gatewaytest.WithRateLimits(quotas), gatewaytest.WithAnyModel())
	defer s.Close()
	client := s.Client(infergate.WithMaxRetries(0))

	req := infergate.ChatRequest{Model: "glm-5", Messages: []infergate.Message{infergate.UserMessage("Hello")}}
	for range 3 {
		var info infergate.ResponseInfo
		_, err := client.Chat.Create(context.Background(), req, infergate.WithResponseInfo(&info))
		var apiErr *infergate.APIError
		if errors.As(err, &apiErr) {
			fmt.Println(apiErr.StatusCode, apiErr.Message)
			continue
		}
		fmt.Println("answered;", info.RateLimits.RemainingRequests, "requests left until",
			info.RateLimits.ResetRequests.Format(time.RFC3339))
	}
	// Output:
	// answered; 1 requests left until 2025-10-15T12:35:00Z
	// answered; 0 requests left until 2025-10-15T12:35:00Z
	// 429 Rate limit exceeded: 2/2 requests per minute. Please retry after 4 seconds.
}
