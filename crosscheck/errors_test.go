package crosscheck

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/infergate/infergate-go/gatewaytest"
)

// TestErrorBodies shows what openai-go makes of each error body the gateway sends.
func TestErrorBodies(t *testing.T) {
	tests := []struct {
		name              string
		reply             gatewaytest.ErrorReply
		status            int
		code, typ, detail string // detail is looked for in the raw body when openai-go finds no message
	}{
		{name: "OpenAI shape", reply: gatewaytest.OpenAIErrorReply(http.StatusPaymentRequired, gatewaytest.OpenAIErrorFields{
			Message: "Insufficient balance", Type: "insufficient_balance", Code: "insufficient_balance",
			Extra: map[string]any{"available": "0"}}),
			status: 402, code: "insufficient_balance", typ: "insufficient_balance"},
		{name: "numeric code", reply: gatewaytest.OpenAIErrorReply(http.StatusBadRequest, gatewaytest.OpenAIErrorFields{
			Message: "bad", Type: "invalid_request_error", Code: 1234}),
			status: 400, code: "1234", typ: "invalid_request_error"},
		{name: "gateway 429", reply: gatewaytest.RateLimitErrorReply(time.Second),
			status: 429, code: "rate_limit_exceeded", typ: "requests"},
		// FastAPI bodies have no "error" key: openai-go keeps the status, but message, code and
		// type are empty and the reason is only in the response body (DumpResponse).
		{name: "detail", reply: gatewaytest.DetailErrorReply(http.StatusUnauthorized, "Invalid API key"),
			status: 401, detail: "Invalid API key"},
		{name: "validation detail", reply: gatewaytest.ValidationErrorReply("messages", "Field required"),
			status: 422, detail: "Field required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.NewServer(gatewaytest.WithFailures(1, tt.reply))
			defer srv.Close()
			_, err := newClient(srv).Chat.Completions.New(context.Background(), userAsks("hi"))
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want an *openai.Error", err)
			}
			if apiErr.StatusCode != tt.status || apiErr.Code != tt.code || apiErr.Type != tt.typ {
				t.Errorf("status %d, code %q, type %q; want %d, %q, %q", apiErr.StatusCode, apiErr.Code, apiErr.Type, tt.status, tt.code, tt.typ)
			}
			if dump := string(apiErr.DumpResponse(true)); tt.detail != "" && (apiErr.Message != "" || !strings.Contains(dump, tt.detail)) {
				t.Errorf("message %q, response %q; want no message and %q in the response body", apiErr.Message, dump, tt.detail)
			}
		})
	}
}

// TestErrorIn200 shows that openai-go takes a 200 whose body is {"error": "..."} for an empty
// answer: no error, no choices.
func TestErrorIn200(t *testing.T) {
	srv := gatewaytest.NewServer(gatewaytest.WithFailures(1, gatewaytest.StringErrorReply(http.StatusOK, "provider failed")))
	defer srv.Close()
	resp, err := newClient(srv).Chat.Completions.New(context.Background(), userAsks("hi"))
	if err != nil {
		t.Fatalf("err = %v, want none", err)
	}
	if len(resp.Choices) != 0 || !strings.Contains(resp.RawJSON(), "provider failed") {
		t.Errorf("choices %d, raw %s", len(resp.Choices), resp.RawJSON())
	}
}
