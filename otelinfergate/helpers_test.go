package otelinfergate_test

import (
	"context"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/otelinfergate"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// telemetry records what an instrumented client emits: spans in memory, metrics on demand.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	option infergate.Option
}

func newTelemetry(opts ...otelinfergate.Option) *telemetry {
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	base := []otelinfergate.Option{otelinfergate.WithTracerProvider(tp), otelinfergate.WithMeterProvider(mp),
		otelinfergate.WithPropagator(propagation.TraceContext{})}
	tel.option = otelinfergate.Instrument(append(base, opts...)...)
	return tel
}

// span returns the one ended span of that name.
func (tel *telemetry) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	found := tel.named(name)
	if len(found) != 1 {
		t.Fatalf("%d ended spans named %q; all: %v", len(found), name, tel.names())
	}
	return found[0]
}

func (tel *telemetry) named(name string) []sdktrace.ReadOnlySpan {
	var found []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	return found
}

func (tel *telemetry) names() []string {
	var names []string
	for _, s := range tel.spans.Ended() {
		names = append(names, s.Name())
	}
	return names
}

// children returns the ended spans whose parent is span.
func (tel *telemetry) children(span sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var kids []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Parent().SpanID() == span.SpanContext().SpanID() {
			kids = append(kids, s)
		}
	}
	return kids
}

func attrsOf(kvs []attribute.KeyValue) map[string]attribute.Value {
	m := make(map[string]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// wantAttrs checks that span carries each attribute with the value given (an Emit of the value).
func wantAttrs(t *testing.T, span sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrsOf(span.Attributes())
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("span %q: no %s (want %s)", span.Name(), k, v)
		} else if g.Emit() != v {
			t.Errorf("span %q: %s = %s, want %s", span.Name(), k, g.Emit(), v)
		}
	}
}

// noAttrs checks that span carries none of the attributes named.
func noAttrs(t *testing.T, span sdktrace.ReadOnlySpan, keys ...string) {
	t.Helper()
	got := attrsOf(span.Attributes())
	for _, k := range keys {
		if v, ok := got[k]; ok {
			t.Errorf("span %q: unexpected %s = %s", span.Name(), k, v.Emit())
		}
	}
}

func (tel *telemetry) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// points returns the data points of a histogram, whatever its number type, as count, sum and
// attributes.
type point struct {
	count uint64
	sum   float64
	attrs map[string]attribute.Value
}

func points(rm metricdata.ResourceMetrics, name string) []point {
	var out []point
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out = append(out, point{p.Count, p.Sum, attrsOf(p.Attributes.ToSlice())})
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					out = append(out, point{p.Count, float64(p.Sum), attrsOf(p.Attributes.ToSlice())})
				}
			}
		}
	}
	return out
}

// tokenPoint returns the token usage point of one token type.
func tokenPoint(t *testing.T, rm metricdata.ResourceMetrics, tokenType string) point {
	t.Helper()
	for _, p := range points(rm, "gen_ai.client.token.usage") {
		if p.attrs["gen_ai.token.type"].AsString() == tokenType {
			return p
		}
	}
	t.Fatalf("no gen_ai.client.token.usage point for %s", tokenType)
	return point{}
}

// everyString lists every string the telemetry holds: span names, attributes, events, links,
// statuses, and metric names and attributes.
func (tel *telemetry) everyString(t *testing.T) []string {
	var all []string
	addAttrs := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			all = append(all, string(kv.Key), kv.Value.Emit())
		}
	}
	for _, s := range tel.spans.Ended() {
		all = append(all, s.Name(), s.Status().Description)
		addAttrs(s.Attributes())
		for _, e := range s.Events() {
			all = append(all, e.Name)
			addAttrs(e.Attributes)
		}
		for _, l := range s.Links() {
			addAttrs(l.Attributes)
		}
	}
	rm := tel.collect(t)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			all = append(all, m.Name)
			for _, p := range points(rm, m.Name) {
				for k, v := range p.attrs {
					all = append(all, k, v.Emit())
				}
			}
		}
	}
	return all
}

func containsAny(all []string, secret string) string {
	for _, s := range all {
		if strings.Contains(s, secret) {
			return s
		}
	}
	return ""
}
