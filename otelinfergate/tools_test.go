package otelinfergate_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

type city struct {
	City string `json:"city"`
}

// toolLoop runs a loop whose first turn asks for two calls at once, one of which fails; both tools
// wait for each other, so the test also proves they ran in parallel.
func toolLoop(t *testing.T, tel *telemetry) *gatewaytest.Server {
	t.Helper()
	srv := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_w", Name: "weather", Arguments: `{"city":"Lisbon"}`},
			{ID: "call_f", Name: "forecast", Arguments: `{"city":"Porto"}`},
		}, Usage: &gatewaytest.Usage{PromptTokens: 10, CompletionTokens: 4, TotalTokens: 14}},
		gatewaytest.Reply{Content: "Sunny in Lisbon; no forecast for Porto.",
			Usage: &gatewaytest.Usage{PromptTokens: 30, CompletionTokens: 9, TotalTokens: 39}},
	))
	var arrived atomic.Int32
	all := make(chan struct{})
	both := func(ctx context.Context) error {
		if arrived.Add(1) == 2 {
			close(all)
		}
		deadline := time.NewTimer(10 * time.Second) // a bound on a broken test, not a wait for work
		defer deadline.Stop()
		select {
		case <-all:
			return nil
		case <-deadline.C:
			return errors.New("the other call never started")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	weather, err := infergate.NewTool("weather", "Current weather", func(ctx context.Context, in city) (string, error) {
		if err := both(ctx); err != nil {
			return "", err
		}
		return "sunny in " + in.City, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	forecast, err := infergate.NewTool("forecast", "Tomorrow's weather", func(ctx context.Context, in city) (string, error) {
		if err := both(ctx); err != nil {
			return "", err
		}
		return "", errors.New("no forecast station near " + in.City)
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := srv.Client(tel.option).Chat.RunTools(context.Background(), infergate.ChatRequest{Model: gatewaytest.DefaultModel,
		Messages: []infergate.Message{infergate.UserMessage("Weather in Lisbon, forecast for Porto?")}},
		infergate.ToolLoop{Tools: []*infergate.FuncTool{weather, forecast}}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 2 {
		t.Fatalf("%d steps", res.Steps)
	}
	return srv
}

func TestRunTools(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	toolLoop(t, tel)

	agent := tel.span(t, "invoke_agent")
	if agent.Parent().IsValid() || agent.SpanKind() != trace.SpanKindInternal {
		t.Errorf("invoke_agent: parent %v, kind %v; want a root INTERNAL span", agent.Parent(), agent.SpanKind())
	}
	wantAttrs(t, agent, map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": gatewaytest.DefaultModel,
		"gen_ai.usage.input_tokens": "40", "gen_ai.usage.output_tokens": "13", "gen_ai.response.finish_reasons": `["stop"]`})
	if agent.Status().Code == codes.Error {
		t.Errorf("loop status %v: a failing tool is an answer for the model, not a failed loop", agent.Status())
	}

	turns := tel.named("chat " + gatewaytest.DefaultModel)
	if len(turns) != 2 {
		t.Fatalf("%d model turns, want 2: %v", len(turns), tel.names())
	}
	for _, turn := range turns {
		if turn.Parent().SpanID() != agent.SpanContext().SpanID() {
			t.Errorf("a model turn's parent is %v, not the loop", turn.Parent().SpanID())
		}
		if attempts := tel.children(turn); len(attempts) != 1 || attempts[0].Name() != "POST" {
			t.Errorf("a model turn's attempts: %v", attempts)
		}
	}

	weather, forecast := tel.span(t, "execute_tool weather"), tel.span(t, "execute_tool forecast")
	for _, call := range []sdktrace.ReadOnlySpan{weather, forecast} {
		if call.Parent().SpanID() != agent.SpanContext().SpanID() {
			t.Errorf("%s is not a child of the loop", call.Name())
		}
	}
	wantAttrs(t, weather, map[string]string{"gen_ai.tool.name": "weather", "gen_ai.tool.call.id": "call_w",
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function"})
	wantAttrs(t, forecast, map[string]string{"gen_ai.tool.name": "forecast", "gen_ai.tool.call.id": "call_f", "error.type": "tool_run"})
	noAttrs(t, weather, "error.type")
	if weather.Status().Code == codes.Error || forecast.Status().Code != codes.Error {
		t.Errorf("statuses: weather %v, forecast %v", weather.Status(), forecast.Status())
	}
	if d := forecast.Status().Description; strings.Contains(d, "Porto") || !strings.Contains(d, "forecast") {
		t.Errorf("without content capture the failing tool's status must name it without quoting it: %q", d)
	}
	// The calls overlapped: each waited for the other to start.
	if !weather.StartTime().Before(forecast.EndTime()) || !forecast.StartTime().Before(weather.EndTime()) {
		t.Error("the two calls did not overlap")
	}
	for _, s := range tel.spans.Ended() {
		if s.SpanContext().TraceID() != agent.SpanContext().TraceID() {
			t.Errorf("span %q is in another trace", s.Name())
		}
	}
	// Tokens are counted once, by the model turns.
	if p := tokenPoint(t, tel.collect(t), "input"); p.sum != 40 || p.count != 2 {
		t.Errorf("input tokens %+v, want the two turns' 10 and 30", p)
	}
}
