package otelinfergate

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures Instrument.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	captureContent bool
	chunkTiming    bool
}

// WithTracerProvider sets where spans go; the default is the global provider (otel.GetTracerProvider)
// as it is when Instrument is called. A nil provider keeps the default.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tracerProvider = tp
		}
	}
}

// WithMeterProvider sets where metrics go; the default is the global provider (otel.GetMeterProvider)
// as it is when Instrument is called. A nil provider keeps the default.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.meterProvider = mp
		}
	}
}

// WithPropagator sets how trace context is written into the headers of each HTTP attempt; the
// default is the global propagator (otel.GetTextMapPropagator) as it is when Instrument is called.
// A nil propagator keeps the default.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) {
		if p != nil {
			c.propagator = p
		}
	}
}

// WithContentCapture records what was said: the messages sent (gen_ai.input.messages), the answer
// (gen_ai.output.messages), and each tool call's arguments and result. It is off by default, because
// prompts and answers can hold personal or confidential data; credentials are never recorded either
// way, nor the query of an image's URL, where a presigned URL carries its signature.
func WithContentCapture(capture bool) Option {
	return func(c *config) { c.captureContent = capture }
}

// WithChunkTiming records gen_ai.client.operation.time_per_output_chunk: for a streamed chat, the
// time from each chunk to the next. It is off by default because it is the only work done for
// every chunk: one histogram record in the OpenTelemetry SDK costs about as much as decoding the
// chunk, so it roughly doubles the CPU time a stream takes to read (docs/performance.md has the figures),
// while the other metrics and the span cost a few percent. Turn it on where the gaps between
// chunks matter more than that.
func WithChunkTiming(record bool) Option {
	return func(c *config) { c.chunkTiming = record }
}
