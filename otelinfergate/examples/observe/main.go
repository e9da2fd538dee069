// Observe shows what otelinfergate records: a streamed answer and a tool loop, printed as
// OpenTelemetry spans and metrics by the stdout exporters.
//
//	cd otelinfergate && go run ./examples/observe
//
// It talks to the real gateway when INFERGATE_API_KEY is set (gatewaytest.Connect), and otherwise
// to an in-process fake.
// Each span is printed as one line of JSON when it ends, so children come before their parents;
// the metrics follow at the end. Set WithContentCapture(true) to see the messages too.
package main

import (
	"context"
	"errors"
	"io"
	"log"
	"os"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/otelinfergate"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func main() {
	if err := run(context.Background(), os.Stdout, os.Getenv); err != nil {
		log.Fatal(err)
	}
}

// fakeModel scripts the fake gateway: a streamed greeting, then a tool loop's two turns.
var fakeModel = []gatewaytest.Reply{
	{Content: "Hello! Ask me about the weather.", Chunks: []string{"Hello!", " Ask me", " about the weather."}},
	{ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"city":"Lisbon"}`}}},
	{Content: "It is sunny in Lisbon, at 21 °C."},
}

// setUpTelemetry installs global providers that print to w; shutdown flushes them.
func setUpTelemetry(w io.Writer) (shutdown func(context.Context) error, err error) {
	spans, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, err
	}
	metrics, err := stdoutmetric.New(stdoutmetric.WithWriter(w))
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return func(ctx context.Context) error { return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx)) }, nil
}

type city struct {
	City string `json:"city" jsonschema:"the city's name"`
}

// run reads the configuration with getenv, as gatewaytest.Connect does.
func run(ctx context.Context, w io.Writer, getenv func(string) string) error {
	shutdown, err := setUpTelemetry(w)
	if err != nil {
		return err
	}
	// One option instruments every call of the client, with the global providers, the real
	// gateway's client or the fake's. WithChunkTiming adds the time between a stream's chunks, the
	// one metric that costs something per chunk.
	client, stop, err := gatewaytest.Connect(w, getenv, gatewaytest.WithReplies(fakeModel...),
		gatewaytest.WithClientOptions(otelinfergate.Instrument(otelinfergate.WithChunkTiming(true))))
	if err != nil {
		return err
	}
	defer stop()

	stream, err := client.Chat.Stream(ctx, infergate.ChatRequest{Model: "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("Hello!")}})
	if err != nil {
		return err
	}
	for stream.Next() {
	}
	if err := stream.Err(); err != nil {
		return err
	}

	weather, err := infergate.NewTool("get_weather", "The current weather in a city",
		func(ctx context.Context, in city) (string, error) { return "sunny, 21 °C in " + in.City, nil })
	if err != nil {
		return err
	}
	if _, err := client.Chat.RunTools(ctx, infergate.ChatRequest{Model: "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("What is the weather in Lisbon?")}},
		infergate.ToolLoop{Tools: []*infergate.FuncTool{weather}}).Wait(); err != nil {
		return err
	}
	return shutdown(ctx)
}
