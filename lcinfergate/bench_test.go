package lcinfergate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

// replayTransport answers every request with the same event stream, so that the benchmark measures
// the client's work and nothing of the network.
type replayTransport struct{ body []byte }

func (t replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(t.body)), Request: req}, nil
}

// contentStream renders n content chunks as a provider sends them, then the finish, usage and
// [DONE]; it returns the stream and the length of its text.
func contentStream(n int) ([]byte, int) {
	var buf bytes.Buffer
	text := 0
	head := `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","choices":[{"index":0,"delta":`
	fmt.Fprintf(&buf, "data: %s{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n", head)
	for i := range n {
		token := fmt.Sprintf(" word%d", i%997)
		text += len(token)
		quoted, _ := json.Marshal(token)
		fmt.Fprintf(&buf, "data: %s{\"content\":%s},\"finish_reason\":null}]}\n\n", head, quoted)
	}
	fmt.Fprintf(&buf, "data: %s{},\"finish_reason\":\"stop\"}]}\n\n", head)
	buf.WriteString(`data: {"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":10000,"total_tokens":10012}}` + "\n\n")
	buf.WriteString("data: [DONE]\n\n")
	return buf.Bytes(), text
}

// BenchmarkStreamOverhead reads one 10,000-chunk stream three ways, in one run so that they
// compare: the bare SDK (Chat.Stream, the text collected); the floor of any langchaingo adapter
// (the same, plus what langchaingo's types cost: each chunk's text as []byte to a streaming
// function, and a ContentResponse at the end); and lcinfergate's GenerateContent with a streaming
// function. adapter minus floor is the adapter's own cost, floor minus sdk langchaingo's. On a busy
// machine, count instructions instead of timing: with a test binary built CGO_ENABLED=0, run each
// sub-benchmark under valgrind --tool=callgrind with GOGC=off at -test.benchtime 2x and 12x; the
// difference over 100,000 chunks is instructions per chunk, the same from run to run.
func BenchmarkStreamOverhead(b *testing.B) {
	const chunks = 10_000
	stream, textLen := contentStream(chunks)
	client, err := infergate.NewClient(infergate.WithAPIKey("sk-test-key"), infergate.WithBaseURL("http://gateway.invalid"),
		infergate.WithMaxRetries(0), infergate.WithHTTPClient(&http.Client{Transport: replayTransport{body: stream}}))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Tell me a long story.")}}
	var text strings.Builder
	collect := func(_ context.Context, chunk []byte) error {
		text.Write(chunk)
		return nil
	}
	check := func(b *testing.B) {
		if text.Len() != textLen {
			b.Fatalf("collected %d bytes of text, want %d", text.Len(), textLen)
		}
	}
	perChunk := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chunks), "ns/chunk")
	}

	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			text.Reset()
			s, err := client.Chat.Stream(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			for s.Next() {
				text.WriteString(s.Current().Text())
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			check(b)
		}
		perChunk(b)
	})
	b.Run("floor", func(b *testing.B) {
		var opts llms.CallOptions
		llms.WithStreamingFunc(collect)(&opts)
		b.ReportAllocs()
		for range b.N {
			text.Reset()
			s, err := client.Chat.Stream(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			for s.Next() {
				if t := s.Current().Text(); t != "" {
					if err := opts.StreamingFunc(ctx, []byte(t)); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			c := s.Completion()
			resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: c.Text(), StopReason: string(c.FinishReason())}}}
			if resp.Choices[0].Content == "" {
				b.Fatal("no content")
			}
			check(b)
		}
		perChunk(b)
	})
	b.Run("adapter", func(b *testing.B) {
		llm := lcinfergate.New(client, "llama-3.3-70b")
		msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Tell me a long story.")}
		b.ReportAllocs()
		for range b.N {
			text.Reset()
			if _, err := llm.GenerateContent(ctx, msgs, llms.WithStreamingFunc(collect)); err != nil {
				b.Fatal(err)
			}
			check(b)
		}
		perChunk(b)
	})
}
