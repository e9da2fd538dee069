package otelinfergate_test

import (
	"context"
	"fmt"
	"log"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/otelinfergate"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Instrument is one option, for a client or for one call. Here the spans go to memory and are
// printed as a tree; a program passes no option and uses the global providers, which it points at
// its exporter (OTLP to Jaeger, Tempo, Honeycomb, ...).
func ExampleInstrument() {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{Content: "Hello!"}))
	defer srv.Close()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	client := srv.Client(otelinfergate.Instrument(otelinfergate.WithTracerProvider(tp)))

	_, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: "gpt-4o-mini",
		Messages: []infergate.Message{infergate.UserMessage("Hi")}})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.GetSpans() { // in the order they ended: the attempt first
		indent := ""
		if s.Parent.IsValid() {
			indent = "  "
		}
		fmt.Printf("%s%s (%s)\n", indent, s.Name, s.SpanKind)
	}
	// Output:
	//   POST (client)
	// chat gpt-4o-mini (client)
}
