package otelinfergate_test

import (
	"context"
	"fmt"
	"log"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/otelinfergate"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
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

	_, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: "llama-3.3-70b",
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
	// chat llama-3.3-70b (client)
}

// WithChunkTiming times the gaps between a streamed answer's chunks, as the
// gen_ai.client.operation.time_per_output_chunk histogram: one value for each chunk after the
// first.
func ExampleWithChunkTiming() {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{Content: "Hello there!",
		Chunks: []string{"Hello", " there", "!"}}))
	defer srv.Close()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	client := srv.Client(otelinfergate.Instrument(otelinfergate.WithMeterProvider(mp),
		otelinfergate.WithChunkTiming(true)))

	stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{Model: "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("Hi")}})
	if err != nil {
		log.Fatal(err)
	}
	chunks := 0
	for stream.Next() {
		chunks++
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "gen_ai.client.operation.time_per_output_chunk" {
				fmt.Printf("%d chunks, %d gaps timed\n", chunks, h.DataPoints[0].Count)
			}
		}
	}
	// Output:
	// 6 chunks, 5 gaps timed
}
