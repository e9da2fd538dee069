package infergate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
)

// replayTransport answers every request with the same pre-built event stream, so that a benchmark
// measures decoding and nothing of the network.
type replayTransport struct{ body []byte }

func (t replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(t.body)),
		Request:    req,
	}, nil
}

// contentStream renders n content chunks shaped like a real provider's, a finishing chunk, a usage
// chunk and [DONE]. It returns the stream and the text the chunks add up to.
func contentStream(n int) (stream []byte, text string) {
	var buf bytes.Buffer
	var want strings.Builder
	head := `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":`
	fmt.Fprintf(&buf, "data: %s{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n", head)
	for i := range n {
		token := fmt.Sprintf(" word%d", i%997)
		if i%50 == 49 {
			token = ".\n"
		}
		want.WriteString(token)
		quoted, _ := json.Marshal(token)
		fmt.Fprintf(&buf, "data: %s{\"content\":%s},\"logprobs\":null,\"finish_reason\":null}]}\n\n", head, quoted)
	}
	fmt.Fprintf(&buf, "data: %s{},\"finish_reason\":\"stop\"}]}\n\n", head)
	buf.WriteString(`data: {"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":10000,"total_tokens":10012}}` + "\n\n")
	buf.WriteString("data: [DONE]\n\n")
	return buf.Bytes(), want.String()
}

// toolStream renders one tool call whose arguments arrive in n fragments, the way providers send
// them: id, type and name first, then index-only argument pieces, then finish_reason "tool_calls".
func toolStream(n int) (stream []byte, args string) {
	args = toolArguments(n * 6)
	var buf bytes.Buffer
	head := `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","choices":[{"index":0,"delta":`
	fmt.Fprintf(&buf, "data: %s{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_7Xk2\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n", head)
	for i := range n {
		lo, hi := i*len(args)/n, (i+1)*len(args)/n
		quoted, _ := json.Marshal(args[lo:hi])
		fmt.Fprintf(&buf, "data: %s{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%s}}]},\"finish_reason\":null}]}\n\n", head, quoted)
	}
	fmt.Fprintf(&buf, "data: %s{},\"finish_reason\":\"tool_calls\"}]}\n\n", head)
	buf.WriteString("data: [DONE]\n\n")
	return buf.Bytes(), args
}

// toolArguments returns a JSON object of about size bytes.
func toolArguments(size int) string {
	var b strings.Builder
	b.WriteString(`{"location":"Paris, France","unit":"celsius","days":[`)
	for i := 0; b.Len() < size-40; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"day":%d,"note":"sunny spells"}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

func newReplayClient(b *testing.B, stream []byte) *infergate.Client {
	b.Helper()
	return testClient(b, "http://gateway.invalid", infergate.WithHTTPClient(&http.Client{Transport: replayTransport{body: stream}}))
}

var benchRequest = infergate.ChatRequest{
	Model:    "llama-3.3-70b",
	Messages: []infergate.Message{infergate.UserMessage("Tell me a long story.")},
}

// reportPerChunk turns the whole run's time and allocations into figures per chunk.
func reportPerChunk(b *testing.B, before *runtime.MemStats, chunks int) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	total := float64(b.N * chunks)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/chunk")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/total, "B/chunk")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/chunk")
}

// BenchmarkStream decodes a 10,000-chunk content stream through ChatService.Stream, the caller
// collecting the text as it goes.
func BenchmarkStream(b *testing.B) {
	const chunks = 10_000
	stream, want := contentStream(chunks)
	client := newReplayClient(b, stream)
	ctx := context.Background()
	var text strings.Builder
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		s, err := client.Chat.Stream(ctx, benchRequest)
		if err != nil {
			b.Fatal(err)
		}
		text.Reset()
		for s.Next() {
			text.WriteString(s.Current().Text())
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
		if text.Len() != len(want) {
			b.Fatalf("decoded %d bytes of text, want %d", text.Len(), len(want))
		}
	}
	b.StopTimer()
	reportPerChunk(b, &before, chunks)
}

// BenchmarkStreamToolCalls decodes one tool call streamed in 1,000 argument fragments and
// reassembles it with Completion.
func BenchmarkStreamToolCalls(b *testing.B) {
	const fragments = 1_000
	stream, want := toolStream(fragments)
	client := newReplayClient(b, stream)
	ctx := context.Background()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		s, err := client.Chat.Stream(ctx, benchRequest)
		if err != nil {
			b.Fatal(err)
		}
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
		calls := s.Completion().Choices[0].Message.ToolCalls
		if len(calls) != 1 || calls[0].Function.Arguments != want {
			b.Fatalf("reassembled %+v, want one call with the %d-byte arguments", calls, len(want))
		}
	}
	b.StopTimer()
	reportPerChunk(b, &before, fragments)
}
