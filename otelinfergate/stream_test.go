package otelinfergate_test

import (
	"context"
	"io"
	"math"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/otelinfergate"
	"go.opentelemetry.io/otel/codes"
)

// event is one server-sent event of a scripted stream, written after a pause.
type event struct {
	after time.Duration
	data  string
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

const testKey = "sk-live-0123456789abcdefSECRET"

// scriptedClient answers every request with the events given, each written after its pause (fake
// time inside a synctest bubble); with hold the stream then stays open until the request ends.
func scriptedClient(tel *telemetry, events []event, hold bool) *infergate.Client {
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		pr, pw := io.Pipe()
		go func() {
			for _, ev := range events {
				time.Sleep(ev.after)
				if _, err := io.WriteString(pw, "data: "+ev.data+"\n\n"); err != nil {
					return
				}
			}
			if hold {
				<-req.Context().Done()
			}
			pw.Close()
		}()
		h := http.Header{"Content-Type": {"text/event-stream"}, "X-Request-Id": {"req-42"}}
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: pr, Request: req}, nil
	})
	client, err := infergate.NewClient(infergate.WithBaseURL("https://gateway.example"), infergate.WithAPIKey(testKey),
		infergate.WithHTTPClient(&http.Client{Transport: rt}), tel.option)
	if err != nil {
		panic(err)
	}
	return client
}

var streamRequest = infergate.ChatRequest{Model: "m-1", Messages: []infergate.Message{infergate.UserMessage("Count")}}

// A stream that takes 200 ms: its span lasts until the stream ends, not until the headers came.
// With WithChunkTiming, every chunk after the first is timed.
func TestStreamSpanCoversTheStream(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(otelinfergate.WithChunkTiming(true))
		client := scriptedClient(tel, []event{
			{20 * time.Millisecond, `{"id":"s1","model":"m-1-real","choices":[{"index":0,"delta":{"role":"assistant","content":"one"}}]}`},
			{150 * time.Millisecond, `{"id":"s1","model":"m-1-real","choices":[{"index":0,"delta":{"content":" two"}}]}`},
			{30 * time.Millisecond, `{"id":"s1","model":"m-1-real","choices":[{"index":0,"delta":{"content":" three"},"finish_reason":"stop"}]}`},
			{0, `{"id":"s1","model":"m-1-real","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":1}}}`},
			{0, `[DONE]`},
		}, false)
		stream, err := client.Chat.Stream(context.Background(), streamRequest)
		if err != nil {
			t.Fatal(err)
		}
		if len(tel.named("chat m-1")) != 0 || len(tel.named("POST")) != 1 {
			t.Fatalf("before reading: ended spans %v, want the attempt alone", tel.names())
		}
		chunks := 0
		for stream.Next() {
			chunks++
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		span := tel.span(t, "chat m-1")
		if d := span.EndTime().Sub(span.StartTime()); d < 200*time.Millisecond {
			t.Errorf("span lasted %v, the stream 200ms", d)
		}
		if span.Status().Code == codes.Error {
			t.Errorf("status %v", span.Status())
		}
		wantAttrs(t, span, map[string]string{"gen_ai.request.stream": "true", "gen_ai.response.id": "s1",
			"gen_ai.response.model": "m-1-real", "gen_ai.response.finish_reasons": `["stop"]`,
			"gen_ai.usage.input_tokens": "5", "gen_ai.usage.output_tokens": "3",
			"gen_ai.usage.cache_read.input_tokens": "4", "gen_ai.usage.reasoning.output_tokens": "1",
			"gen_ai.response.time_to_first_chunk": "0.02", "server.address": "gateway.example", "server.port": "443",
			"infergate.request.id": "req-42"})

		rm := tel.collect(t)
		first := points(rm, "gen_ai.client.operation.time_to_first_chunk")
		if len(first) != 1 || first[0].count != 1 || first[0].sum != 0.02 {
			t.Errorf("time to first chunk %+v, want one value of 0.02", first)
		}
		if first[0].attrs["gen_ai.response.model"].AsString() != "m-1-real" {
			t.Errorf("time to first chunk attributes %v", first[0].attrs)
		}
		per := points(rm, "gen_ai.client.operation.time_per_output_chunk")
		if len(per) != 1 || per[0].count != uint64(chunks-1) || math.Abs(per[0].sum-0.18) > 1e-9 {
			t.Errorf("time per output chunk %+v, want %d values adding to 0.18 s", per, chunks-1)
		}
		d := points(rm, "gen_ai.client.operation.duration")
		if len(d) != 1 || d[0].sum < 0.2 {
			t.Errorf("duration %+v", d)
		}
		if p := tokenPoint(t, rm, "output"); p.sum != 3 {
			t.Errorf("output tokens %+v", p)
		}
	})
}

// A stream the caller closes after one chunk ends its span at Close, as canceled.
func TestStreamClosedEarly(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry()
		client := scriptedClient(tel, []event{
			{10 * time.Millisecond, `{"id":"s2","model":"m-1","choices":[{"index":0,"delta":{"content":"one"}}]}`},
		}, true)
		stream, err := client.Chat.Stream(context.Background(), streamRequest)
		if err != nil {
			t.Fatal(err)
		}
		if !stream.Next() {
			t.Fatal(stream.Err())
		}
		time.Sleep(40 * time.Millisecond)
		if len(tel.named("chat m-1")) != 0 {
			t.Fatal("span ended before the stream did")
		}
		stream.Close()
		span := tel.span(t, "chat m-1")
		if d := span.EndTime().Sub(span.StartTime()); d != 50*time.Millisecond {
			t.Errorf("span lasted %v, want the 50ms until Close", d)
		}
		if span.Status().Code != codes.Error {
			t.Errorf("status %v", span.Status())
		}
		wantAttrs(t, span, map[string]string{"error.type": "canceled", "gen_ai.response.time_to_first_chunk": "0.01",
			"gen_ai.response.id": "s2"})
		stream.Close()
		if len(tel.named("chat m-1")) != 1 {
			t.Error("a second Close ended the span again")
		}
		synctest.Wait()
	})
}

// A stream whose context ends mid-way ends its span then, without the caller reading again.
func TestStreamCutByContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry()
		client := scriptedClient(tel, []event{
			{10 * time.Millisecond, `{"id":"s3","model":"m-1","choices":[{"index":0,"delta":{"content":"one"}}]}`},
		}, true)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		stream, err := client.Chat.Stream(ctx, streamRequest)
		if err != nil {
			t.Fatal(err)
		}
		if !stream.Next() {
			t.Fatal(stream.Err())
		}
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		span := tel.span(t, "chat m-1")
		if d := span.EndTime().Sub(span.StartTime()); d != 100*time.Millisecond {
			t.Errorf("span lasted %v, want the context's 100ms", d)
		}
		wantAttrs(t, span, map[string]string{"error.type": "timeout", "gen_ai.response.id": "s3", "gen_ai.response.model": "m-1"})
		noAttrs(t, span, "gen_ai.response.finish_reasons")
		if stream.Next() {
			t.Error("stream went on after its context ended")
		}
		if len(tel.named("chat m-1")) != 1 {
			t.Errorf("spans %v", tel.names())
		}
		d := points(tel.collect(t), "gen_ai.client.operation.duration")
		if len(d) != 1 || d[0].attrs["error.type"].AsString() != "timeout" {
			t.Errorf("duration %+v", d)
		}
	})
}

// By default no chunk is timed, and the time to the first chunk is still recorded.
func TestStreamChunkTimingOffByDefault(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry()
		client := scriptedClient(tel, []event{
			{30 * time.Millisecond, `{"id":"s4","model":"m-1","choices":[{"index":0,"delta":{"content":"one"}}]}`},
			{10 * time.Millisecond, `{"id":"s4","model":"m-1","choices":[{"index":0,"delta":{"content":" two"},"finish_reason":"stop"}]}`},
			{0, `[DONE]`},
		}, false)
		stream, err := client.Chat.Stream(context.Background(), streamRequest)
		if err != nil {
			t.Fatal(err)
		}
		for stream.Next() {
		}
		wantAttrs(t, tel.span(t, "chat m-1"), map[string]string{"gen_ai.response.time_to_first_chunk": "0.03"})
		rm := tel.collect(t)
		if first := points(rm, "gen_ai.client.operation.time_to_first_chunk"); len(first) != 1 || first[0].sum != 0.03 {
			t.Errorf("time to first chunk %+v", first)
		}
		if per := points(rm, "gen_ai.client.operation.time_per_output_chunk"); len(per) != 0 {
			t.Errorf("chunks timed without WithChunkTiming: %+v", per)
		}
	})
}
