package einoinfergate_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
)

const benchChunks = 10_000

// BenchmarkStream drains a 10,000-chunk answer three ways on one loopback server, to tell the
// adapter's cost from the SDK's and from eino's own: the SDK's Chat.Stream alone; the same with a
// schema.Message built per chunk and sent through a schema.Pipe read on another goroutine, as any
// eino stream must be; and the adapter's Stream reader. ns/chunk is the figure to compare, in one
// run (the server writing the stream shares the CPU).
func BenchmarkStream(b *testing.B) {
	// The stream is written once and served as bytes, so that the server's share of the CPU is
	// the least it can be.
	var body bytes.Buffer
	head := `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
	body.WriteString(head + `{"role":"assistant"},"finish_reason":null}]}` + "\n\n")
	for range benchChunks {
		body.WriteString(head + `{"content":"tok "},"finish_reason":null}]}` + "\n\n")
	}
	body.WriteString(head + `{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body.Bytes())
	}))
	defer srv.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey("sk-bench"))
	if err != nil {
		b.Fatal(err)
	}
	req := infergate.ChatRequest{Model: "m", Messages: []infergate.Message{infergate.UserMessage("q")}}
	chat, err := einoinfergate.NewChatModel(client, "m")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	perChunk := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
	}

	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			s, err := client.Chat.Stream(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for s.Next() {
				n += len(s.Current().Text())
			}
			if s.Err() != nil || n != 4*benchChunks {
				b.Fatal(s.Err(), n)
			}
			s.Close()
		}
		perChunk(b)
	})
	b.Run("sdk+eino-pipe", func(b *testing.B) {
		for b.Loop() {
			s, err := client.Chat.Stream(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			sr, sw := schema.Pipe[*schema.Message](64) // the adapter's pipeSize
			go func() {
				defer sw.Close()
				defer s.Close()
				for s.Next() {
					if sw.Send(&schema.Message{Role: schema.Assistant, Content: s.Current().Text()}, nil) {
						return
					}
				}
			}()
			drainBench(b, sr)
		}
		perChunk(b)
	})
	b.Run("adapter", func(b *testing.B) {
		for b.Loop() {
			sr, err := chat.Stream(ctx, []*schema.Message{schema.UserMessage("q")})
			if err != nil {
				b.Fatal(err)
			}
			drainBench(b, sr)
		}
		perChunk(b)
	})
}

func drainBench(b *testing.B, sr *schema.StreamReader[*schema.Message]) {
	defer sr.Close()
	n := 0
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		n += len(msg.Content)
	}
	if n != 4*benchChunks {
		b.Fatalf("%d bytes of content, want %d", n, 4*benchChunks)
	}
}
