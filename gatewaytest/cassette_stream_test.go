package gatewaytest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

// pacedFile is a cassette written by hand: a stream whose events came at 0,
// 1 and 3 seconds.
const pacedFile = `{
  "version": 1,
  "interactions": [{
    "request": {"method": "POST", "path": "/api/v1/chat/completions",
      "json": {"messages": [{"content": "Capital of France?", "role": "user"}], "model": "llama-3.3-70b", "stream": true}},
    "response": {"status": 200, "header": {"Content-Type": ["text/event-stream"]}, "events": [
      {"offset_ms": 0, "data": {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "llama-3.3-70b", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Pa"}}]}},
      {"offset_ms": 1000, "data": {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "llama-3.3-70b", "choices": [{"index": 0, "delta": {"content": "ris"}, "finish_reason": "stop"}]}},
      {"offset_ms": 3000, "raw": "data: [DONE]\n\n"}
    ]}
  }]
}`

func pacedArrivals(t *testing.T, opts ...gatewaytest.CassetteOption) []time.Duration {
	path := filepath.Join(t.TempDir(), "paced.json")
	if err := os.WriteFile(path, []byte(pacedFile), 0o644); err != nil {
		t.Fatal(err)
	}
	var arrivals []time.Duration
	synctest.Test(t, func(t *testing.T) {
		play := openCassette(t, path, gatewaytest.CassetteReplay, opts...)
		start := time.Now()
		st, err := offline(t, play).Chat.Stream(context.Background(), chatReq)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for st.Next() {
			arrivals = append(arrivals, time.Since(start))
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		if got := st.Completion().Text(); got != "Paris" {
			t.Fatalf("replayed %q", got)
		}
		// The [DONE] event ends the stream at its own offset.
		arrivals = append(arrivals, time.Since(start))
	})
	return arrivals
}

func TestCassetteReplayPacing(t *testing.T) {
	t.Parallel()
	if got := pacedArrivals(t); got[len(got)-1] != 0 {
		t.Errorf("an unpaced replay took %v, want no time at all", got)
	}
	got := pacedArrivals(t, gatewaytest.WithRecordedPacing())
	want := []time.Duration{0, time.Second, 3 * time.Second}
	if len(got) != len(want) {
		t.Fatalf("arrivals %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("arrivals %v, want %v", got, want)
		}
	}
}

// A replayed stream the caller abandons, or whose context ends, stops its
// writer: TestMain's leak check fails the run otherwise.
func TestCassetteReplayedStreamStops(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	fake := gatewaytest.NewServer(gatewaytest.WithChunkSize(2))
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	client := fake.Client(rec.Option())
	for range 2 {
		if _, err := streamSession(context.Background(), client); err != nil {
			t.Fatal(err)
		}
	}
	rec.Close()
	fake.Close()

	play := openCassette(t, path, gatewaytest.CassetteReplay, gatewaytest.WithRecordedPacing())
	st, err := offline(t, play).Chat.Stream(context.Background(), chatReq)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Next() {
		t.Fatal(st.Err())
	}
	st.Close()

	ctx, cancel := context.WithCancel(context.Background())
	st, err = offline(t, play).Chat.Stream(ctx, chatReq)
	if err != nil {
		t.Fatal(err)
	}
	st.Next()
	cancel()
	for st.Next() {
	}
	if st.Err() == nil {
		t.Fatal("a stream whose context ended finished without an error")
	}
	st.Close()
}
