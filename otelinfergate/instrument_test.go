package otelinfergate_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	srv := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "Hello there", Model: "provider/m-1",
		Usage: &gatewaytest.Usage{PromptTokens: 7, CompletionTokens: 2, TotalTokens: 9}}))
	client := srv.Client(tel.option)
	resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: gatewaytest.DefaultModel,
		Messages:    []infergate.Message{infergate.UserMessage("Hi")},
		Temperature: infergate.Ptr(0.5), TopP: infergate.Ptr(0.9), MaxTokens: infergate.Ptr(64),
		PresencePenalty: infergate.Ptr(0.25), FrequencyPenalty: infergate.Ptr(-0.5), Stop: []string{"END"}, N: infergate.Ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	span := tel.span(t, "chat "+gatewaytest.DefaultModel)
	rec, _ := srv.LastRequest()
	if span.SpanKind() != trace.SpanKindClient || span.Status().Code == codes.Error {
		t.Errorf("kind %v, status %v", span.SpanKind(), span.Status())
	}
	wantAttrs(t, span, map[string]string{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "infergate", "gen_ai.request.model": gatewaytest.DefaultModel,
		"gen_ai.request.stream": "false", "gen_ai.request.temperature": "0.5", "gen_ai.request.top_p": "0.9",
		"gen_ai.request.max_tokens": "64", "gen_ai.request.presence_penalty": "0.25",
		"gen_ai.request.frequency_penalty": "-0.5", "gen_ai.request.stop_sequences": `["END"]`,
		"gen_ai.request.choice.count": "1", "gen_ai.response.id": resp.ID, "gen_ai.response.model": "provider/m-1",
		"gen_ai.response.finish_reasons": `["stop"]`, "gen_ai.usage.input_tokens": "7", "gen_ai.usage.output_tokens": "2",
		"server.address": "127.0.0.1", "infergate.request.id": rec.RequestID,
	})
	noAttrs(t, span, "error.type", "gen_ai.response.time_to_first_chunk", "gen_ai.input.messages", "gen_ai.output.messages")

	attempts := tel.children(span)
	if len(attempts) != 1 || attempts[0].Name() != "POST" || attempts[0].SpanKind() != trace.SpanKindClient {
		t.Fatalf("attempt spans %v", attempts)
	}
	wantAttrs(t, attempts[0], map[string]string{"http.request.method": "POST", "http.response.status_code": "200",
		"url.full": srv.URL() + "/api/v1/chat/completions"})
	noAttrs(t, attempts[0], "gen_ai.operation.name", "http.request.resend_count")
	// The attempt's context went out with the request.
	sent := propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier(rec.Header))
	if sc := trace.SpanContextFromContext(sent); sc.SpanID() != attempts[0].SpanContext().SpanID() || sc.TraceID() != span.SpanContext().TraceID() {
		t.Errorf("traceparent %q is not the attempt's span", rec.Header.Get("Traceparent"))
	}

	rm := tel.collect(t)
	durations := points(rm, "gen_ai.client.operation.duration")
	if len(durations) != 1 || durations[0].count != 1 {
		t.Fatalf("durations %+v", durations)
	}
	d := durations[0]
	if d.attrs["gen_ai.operation.name"].AsString() != "chat" || d.attrs["gen_ai.response.model"].AsString() != "provider/m-1" ||
		d.attrs["gen_ai.request.model"].AsString() != gatewaytest.DefaultModel || d.attrs["gen_ai.provider.name"].AsString() != "infergate" {
		t.Errorf("duration attributes %v", d.attrs)
	}
	if _, ok := d.attrs["error.type"]; ok {
		t.Error("error.type on a success")
	}
	if p := tokenPoint(t, rm, "input"); p.sum != 7 || p.count != 1 {
		t.Errorf("input tokens %+v", p)
	}
	if p := tokenPoint(t, rm, "output"); p.sum != 2 || p.count != 1 {
		t.Errorf("output tokens %+v", p)
	}
	if n := len(points(rm, "gen_ai.client.operation.time_to_first_chunk")) + len(points(rm, "gen_ai.client.operation.time_per_output_chunk")); n != 0 {
		t.Errorf("%d chunk metrics for a call that did not stream", n)
	}
}

func TestRetryIsOneOperationWithTwoAttempts(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	srv := gatewaytest.New(t, gatewaytest.WithFailures(1, gatewaytest.RateLimitErrorReply(0)))
	_, err := srv.Client(tel.option).Chat.Create(context.Background(), infergate.ChatRequest{Model: gatewaytest.DefaultModel,
		Messages: []infergate.Message{infergate.UserMessage("Hi")}})
	if err != nil {
		t.Fatal(err)
	}
	span := tel.span(t, "chat "+gatewaytest.DefaultModel)
	if span.Status().Code == codes.Error {
		t.Errorf("status %v after a successful retry", span.Status())
	}
	noAttrs(t, span, "error.type")
	attempts := tel.children(span)
	if len(attempts) != 2 {
		t.Fatalf("%d attempt spans, want 2", len(attempts))
	}
	wantAttrs(t, attempts[0], map[string]string{"http.response.status_code": "429", "error.type": "429"})
	noAttrs(t, attempts[0], "http.request.resend_count")
	if attempts[0].Status().Code != codes.Error {
		t.Errorf("429 attempt status %v", attempts[0].Status())
	}
	wantAttrs(t, attempts[1], map[string]string{"http.response.status_code": "200", "http.request.resend_count": "1"})
	if len(tel.named("chat "+gatewaytest.DefaultModel)) != 1 {
		t.Errorf("spans %v", tel.names())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Traceparent") == reqs[1].Header.Get("Traceparent") {
		t.Errorf("each attempt should carry its own span's context: %d requests", len(reqs))
	}
}

func TestAPIError(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	srv := gatewaytest.New(t, gatewaytest.WithFailures(1, gatewaytest.OpenAIErrorReply(http.StatusNotFound,
		gatewaytest.OpenAIErrorFields{Message: "model nope not found", Type: "invalid_request_error", Code: "model_not_found"})))
	_, err := srv.Client(tel.option).Chat.Create(context.Background(), infergate.ChatRequest{Model: "nope",
		Messages: []infergate.Message{infergate.UserMessage("Hi")}})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err %v", err)
	}
	span := tel.span(t, "chat nope")
	if span.Status().Code != codes.Error || span.Status().Description != err.Error() {
		t.Errorf("status %+v", span.Status())
	}
	wantAttrs(t, span, map[string]string{"error.type": "404", "infergate.request.id": apiErr.RequestID})
	noAttrs(t, span, "gen_ai.response.id", "gen_ai.usage.input_tokens")
	d := points(tel.collect(t), "gen_ai.client.operation.duration")
	if len(d) != 1 || d[0].attrs["error.type"].AsString() != "404" {
		t.Errorf("duration points %+v", d)
	}
	if len(points(tel.collect(t), "gen_ai.client.token.usage")) != 0 {
		t.Error("token usage recorded for a failed call")
	}
}

func TestEmbeddings(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	srv := gatewaytest.New(t)
	resp, err := srv.Client(tel.option).Embeddings.Create(context.Background(), infergate.EmbeddingRequest{
		Model: gatewaytest.DefaultEmbeddingModel, Input: []string{"one two", "three"}, EncodingFormat: infergate.EmbeddingFormatFloat, Dimensions: infergate.Ptr(8)})
	if err != nil {
		t.Fatal(err)
	}
	span := tel.span(t, "embeddings "+gatewaytest.DefaultEmbeddingModel)
	wantAttrs(t, span, map[string]string{"gen_ai.operation.name": "embeddings", "gen_ai.request.model": gatewaytest.DefaultEmbeddingModel,
		"gen_ai.response.model": resp.Model, "gen_ai.usage.input_tokens": strconv.Itoa(resp.Usage.PromptTokens),
		"gen_ai.request.encoding_formats": `["float"]`, "gen_ai.embeddings.dimension.count": "8"})
	noAttrs(t, span, "gen_ai.usage.output_tokens", "gen_ai.request.stream")
	rm := tel.collect(t)
	if p := tokenPoint(t, rm, "input"); p.sum != float64(resp.Usage.PromptTokens) || p.attrs["gen_ai.operation.name"].AsString() != "embeddings" {
		t.Errorf("input tokens %+v", p)
	}
	if n := len(points(rm, "gen_ai.client.token.usage")); n != 1 {
		t.Errorf("%d token usage points, want the input's alone", n)
	}
}

func TestOtherRoutes(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	srv := gatewaytest.New(t)
	client := srv.Client(tel.option)
	if _, err := client.Models.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	speech, err := client.Audio.Speak(context.Background(), infergate.SpeechRequest{Model: gatewaytest.DefaultSpeechModel, Input: "Hello"})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, speech)
	speech.Close()

	lists := tel.named("models.list") // the catalogue, listed or looked up by the speech call
	if len(lists) == 0 {
		t.Fatalf("no models.list span: %v", tel.names())
	}
	for _, list := range lists {
		if list.SpanKind() != trace.SpanKindClient || len(tel.children(list)) != 1 {
			t.Errorf("models.list: kind %v, %d attempts", list.SpanKind(), len(tel.children(list)))
		}
		noAttrs(t, list, "gen_ai.operation.name", "gen_ai.provider.name")
	}
	wantAttrs(t, tel.span(t, "generate_content "+gatewaytest.DefaultSpeechModel), map[string]string{"gen_ai.operation.name": "generate_content",
		"gen_ai.output.type": "speech", "gen_ai.request.model": gatewaytest.DefaultSpeechModel})
	for _, p := range points(tel.collect(t), "gen_ai.client.operation.duration") {
		if p.attrs["gen_ai.operation.name"].AsString() != "generate_content" {
			t.Errorf("GenAI metric for a route that is not a GenAI operation: %v", p.attrs)
		}
	}
}

// Given to one call, Instrument records that call and no other of the client's.
func TestInstrumentOneCall(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	srv := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "one"}, gatewaytest.Reply{Content: "two"}))
	client := srv.Client()
	req := infergate.ChatRequest{Model: gatewaytest.DefaultModel, Messages: []infergate.Message{infergate.UserMessage("Hi")}}
	if _, err := client.Chat.Create(context.Background(), req, tel.option); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if names := tel.names(); !slices.Equal(names, []string{"POST", "chat " + gatewaytest.DefaultModel}) {
		t.Errorf("spans %v; want the instrumented call's attempt and operation only", names)
	}
	if d := points(tel.collect(t), "gen_ai.client.operation.duration"); len(d) != 1 || d[0].count != 1 {
		t.Errorf("duration points %+v; want one recording", d)
	}
}
