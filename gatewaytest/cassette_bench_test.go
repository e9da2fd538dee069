package gatewaytest_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

const benchChunks = 10_000

func bigReply() gatewaytest.Reply {
	return gatewaytest.Reply{Content: strings.Repeat("w ", benchChunks)}
}

// chunkCount streams chatReq to its end and counts the chunks.
func chunkCount(b *testing.B, client *infergate.Client) {
	b.Helper()
	st, err := client.Chat.Stream(context.Background(), chatReq)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	n := 0
	for st.Next() {
		n++
	}
	if err := st.Err(); err != nil {
		b.Fatal(err)
	}
	if n < benchChunks {
		b.Fatalf("%d chunks, want %d", n, benchChunks)
	}
}

// BenchmarkCassetteStream compares a 10,000-chunk stream from the fake with
// the same stream replayed from a cassette, per chunk.
func BenchmarkCassetteStream(b *testing.B) {
	path := filepath.Join(b.TempDir(), "c.json")
	fake := gatewaytest.NewServer()
	defer fake.Close()
	rec, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteRecord)
	if err != nil {
		b.Fatal(err)
	}
	fake.Enqueue(bigReply())
	if _, err := streamSession(context.Background(), fake.Client(rec.Option())); err != nil {
		b.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}

	b.Run("fake", func(b *testing.B) {
		client := fake.Client()
		for b.Loop() {
			b.StopTimer()
			fake.Enqueue(bigReply())
			b.StartTimer()
			chunkCount(b, client)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
	})
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			play, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteReplay)
			if err != nil {
				b.Fatal(err)
			}
			client := offline(b, play)
			b.StartTimer()
			chunkCount(b, client)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
	})
}
