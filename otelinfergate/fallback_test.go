package otelinfergate_test

import (
	"context"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"go.opentelemetry.io/otel/codes"
)

// A call that falls back shows in the trace as one span per model: the failed model's with its
// error, then the one that served.
func TestFallbackIsOneSpanPerModel(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	srv := gatewaytest.New(t, gatewaytest.WithModelDown(gatewaytest.DefaultModel, gatewaytest.OutageRetryFailed))
	client := srv.Client(tel.option, infergate.WithMaxRetries(0), infergate.WithFallbackModels("qwen2.5-vl-72b"))
	stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{Model: gatewaytest.DefaultModel,
		Messages: []infergate.Message{infergate.UserMessage("Hi")}})
	if err != nil {
		t.Fatal(err)
	}
	for stream.Next() {
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	stream.Close()
	if down := tel.span(t, "chat "+gatewaytest.DefaultModel); down.Status().Code != codes.Error {
		t.Errorf("the model that failed: status %v, want an error", down.Status())
	}
	if up := tel.span(t, "chat qwen2.5-vl-72b"); up.Status().Code == codes.Error {
		t.Errorf("the model that served: status %v", up.Status())
	}
}
