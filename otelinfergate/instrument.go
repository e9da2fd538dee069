package otelinfergate

import (
	"context"
	"time"

	infergate "github.com/infergate/infergate-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"
)

// Instrument returns an option that records every operation of a client, or of one call, as
// OpenTelemetry spans and metrics following the GenAI semantic conventions:
//
//	client, err := infergate.NewClient(otelinfergate.Instrument())
//
// Chat completions, embeddings, transcriptions and speech are CLIENT spans named after the
// operation and the model ("chat gpt-4o"); a stream's span lasts until the stream ends. Each HTTP
// attempt, retries included, is a CLIENT child span named after the method ("POST"), whose context
// is written into the request's headers by the propagator. A tool loop (Chat.RunTools) is an
// invoke_agent span over its model turns and its execute_tool spans. The other routes (the model
// catalogue, billing, sessions, ...) are CLIENT spans named after the operation ("models.list"),
// without GenAI attributes or metrics. Metrics are recorded for the GenAI routes only, so that a
// tool loop does not count its turns' tokens twice.
//
// Given to one call, it records that call alone:
//
//	resp, err := client.Chat.Create(ctx, req, otelinfergate.Instrument())
//
// Each Instrument records on its own, so a call given one on a client that has one is recorded twice.
func Instrument(opts ...Option) infergate.Option {
	c := config{
		tracerProvider: otel.GetTracerProvider(),
		meterProvider:  otel.GetMeterProvider(),
		propagator:     otel.GetTextMapPropagator(),
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	in, err := newInstruments(c.meterProvider.Meter(scope, metric.WithSchemaURL(schemaURL)))
	if err != nil {
		otel.Handle(err)
	}
	t := &instrumentation{config: c, in: in,
		tracer: c.tracerProvider.Tracer(scope, trace.WithSchemaURL(schemaURL))}
	return infergate.WithObserver(t.observe)
}

type instrumentation struct {
	config
	tracer trace.Tracer
	in     *instruments
}

// operation follows one operation from its start to its end. The SDK calls its hooks one at a
// time.
type operation struct {
	t     *instrumentation
	ctx   context.Context
	span  trace.Span
	op    infergate.Operation
	name  genaiconv.OperationNameAttr // empty for the routes that are not GenAI operations
	start time.Time

	attempts int

	// A stream's chunk timing.
	lastChunk  time.Time
	chunkAttrs []metric.RecordOption
}

func (t *instrumentation) observe(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
	o := &operation{t: t, op: op, name: operationName(op.Name), start: time.Now()}
	kind := trace.SpanKindClient
	if o.name == opInvokeAgent || o.name == opExecuteTool {
		kind = trace.SpanKindInternal // both run in this process
	}
	ctx, o.span = t.tracer.Start(ctx, o.spanName(), trace.WithSpanKind(kind),
		trace.WithTimestamp(o.start), trace.WithAttributes(o.startAttributes()...))
	o.ctx = ctx
	hooks := &infergate.OperationHooks{End: o.end}
	if op.Method != "" {
		hooks.Attempt = o.attempt
	}
	// Timing every chunk is the only cost per chunk, so it is paid only when asked for. The time to
	// the first chunk comes with the end.
	if t.chunkTiming && op.Stream && o.name == opChat && t.in.perChunk.Inst().Enabled(ctx) {
		hooks.Chunk = o.chunk
	}
	return ctx, hooks
}

// operationName maps the SDK's operations to the conventions' names; "" for the other routes.
func operationName(name infergate.OperationName) genaiconv.OperationNameAttr {
	switch name {
	case infergate.OperationChat:
		return opChat
	case infergate.OperationEmbeddings:
		return opEmbeddings
	case infergate.OperationTranscription, infergate.OperationSpeech:
		return opGenerateContent
	case infergate.OperationInvokeAgent:
		return opInvokeAgent
	case infergate.OperationExecuteTool:
		return opExecuteTool
	}
	return ""
}

// spanName is "{operation} {model}", "execute_tool {tool}", or a plain route's operation name.
func (o *operation) spanName() string {
	switch {
	case o.name == "":
		return string(o.op.Name)
	case o.name == opExecuteTool && o.op.Tool != nil:
		return string(o.name) + " " + o.op.Tool.Function.Name
	case o.name == opInvokeAgent || o.op.Model == "":
		return string(o.name)
	}
	return string(o.name) + " " + o.op.Model
}

// chunk records the time since the chunk before, for every chunk after the first. It allocates
// nothing: the metric's attributes are made into a record option once, at the first chunk, which
// names the model that answers.
func (o *operation) chunk(c *infergate.ChatCompletionChunk) {
	now := time.Now()
	if o.lastChunk.IsZero() {
		set := attribute.NewSet(metricSet(o.name, o.op.Model, c.Model, o.op.ServerAddress, o.op.ServerPort, "")...)
		o.chunkAttrs = []metric.RecordOption{metric.WithAttributeSet(set)}
	} else {
		o.t.in.perChunk.Inst().Record(o.ctx, now.Sub(o.lastChunk).Seconds(), o.chunkAttrs...)
	}
	o.lastChunk = now
}

// end completes the span and records the operation's metrics.
func (o *operation) end(e infergate.OperationEnd) {
	now := time.Now()
	attrs := o.endAttributes(e)
	errType := ""
	if e.Err != nil {
		errType = errorType(e.Err)
		attrs = append(attrs, keyErrorType.String(errType))
		o.span.SetStatus(codes.Error, o.errorDescription(e.Err))
	}
	o.span.SetAttributes(attrs...)
	o.span.End(trace.WithTimestamp(now))
	if !o.recordsMetrics() {
		return
	}
	if !e.FirstChunk.IsZero() {
		set := metricSet(o.name, o.op.Model, e.ResponseModel, o.op.ServerAddress, o.op.ServerPort, "")
		o.t.in.firstChunk.RecordSet(o.ctx, e.FirstChunk.Sub(o.start).Seconds(), attribute.NewSet(set...))
	}
	set := metricSet(o.name, o.op.Model, e.ResponseModel, o.op.ServerAddress, o.op.ServerPort, errType)
	in, out, hasUsage := 0, 0, e.Usage != nil
	if hasUsage {
		in, out = e.Usage.PromptTokens, e.Usage.CompletionTokens
		if o.name == opEmbeddings {
			out = -1
		}
	}
	o.t.in.recordEnd(o.ctx, now.Sub(o.start).Seconds(), set, in, out, hasUsage)
}

// recordsMetrics reports a GenAI route; tool loops and tool calls are spans only, and so are the
// routes that are not GenAI operations.
func (o *operation) recordsMetrics() bool {
	return o.name == opChat || o.name == opEmbeddings || o.name == opGenerateContent
}
