// Observe shows what otelinfergate records: a streamed answer and a tool loop, printed as
// OpenTelemetry spans and metrics by the stdout exporters.
//
//	cd otelinfergate && go run ./examples/observe
//
// It talks to the real gateway when INFERGATE_API_KEY is set, and otherwise to an in-process fake.
// Each span is printed as one line of JSON when it ends, so children come before their parents;
// the metrics follow at the end. Set WithContentCapture(true) to see the messages too.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
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
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// fakeModel scripts the fake gateway: a streamed greeting, then a tool loop's two turns.
var fakeModel = []gatewaytest.Reply{
	{Content: "Hello! Ask me about the weather.", Chunks: []string{"Hello!", " Ask me", " about the weather."}},
	{ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"city":"Lisbon"}`}}},
	{Content: "It is sunny in Lisbon, at 21 °C."},
}

// connect returns a client for the real gateway when INFERGATE_API_KEY is set (NewClient reads it
// and INFERGATE_BASE_URL), and otherwise one for an in-process fake.
func connect(w io.Writer, opts ...infergate.Option) (client *infergate.Client, stop func(), err error) {
	if os.Getenv("INFERGATE_API_KEY") != "" {
		client, err := infergate.NewClient(opts...)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(w, "using the real gateway at", cmp.Or(os.Getenv("INFERGATE_BASE_URL"), infergate.DefaultBaseURL))
		return client, func() {}, nil
	}
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(fakeModel...))
	fmt.Fprintln(w, "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)")
	return srv.Client(opts...), srv.Close, nil
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

func run(ctx context.Context, w io.Writer) error {
	shutdown, err := setUpTelemetry(w)
	if err != nil {
		return err
	}
	// One option instruments every call of the client, with the global providers. WithChunkTiming
	// adds the time between a stream's chunks, the one metric that costs something per chunk.
	client, stop, err := connect(w, otelinfergate.Instrument(otelinfergate.WithChunkTiming(true)))
	if err != nil {
		return err
	}
	defer stop()

	stream, err := client.Chat.Stream(ctx, infergate.ChatRequest{Model: "gpt-4o-mini",
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
	if _, err := client.Chat.RunTools(ctx, infergate.ChatRequest{Model: "gpt-4o-mini",
		Messages: []infergate.Message{infergate.UserMessage("What is the weather in Lisbon?")}},
		infergate.ToolLoop{Tools: []*infergate.FuncTool{weather}}).Wait(); err != nil {
		return err
	}
	return shutdown(ctx)
}
