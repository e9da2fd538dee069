package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/infergate/infergate-go"
)

// roleOnly is a chunk that names the role and brings no delta; created tells chunks apart.
func roleOnly(created int) string {
	return ev(fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","created":%d,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`, created))
}

// Chunks that repeat the metadata of the one before them, before the first delta, are folded into
// it: Next hands the metadata out once, and a flood of them (more than the read-ahead's bound would
// hold one by one) keeps the stream sent again when it then fails.
func TestStreamFoldsRepeatedMetadataBeforeTheFirstDelta(t *testing.T) {
	t.Parallel()
	const repeats = 10_000
	flood := strings.Repeat(roleOnly(1), repeats)
	var requests atomic.Int32
	srv := newStreamServer(t, func(w io.Writer) {
		if requests.Add(1) == 1 {
			_, _ = io.WriteString(w, flood+inBandFailure)
			return
		}
		_, _ = io.WriteString(w, flood+content("hi")+ev(`{`+head+`,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)+"data: [DONE]\n\n")
	})
	c := testClient(t, srv, infergate.WithMaxRetries(1))
	stream, err := c.Chat.Stream(t.Context(), hello())
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var before int // chunks handed out before the first delta
	for stream.Next() && stream.Current().Text() == "" {
		before++
	}
	if got := stream.Current().Text(); got != "hi" || before != 1 {
		t.Errorf("%d chunks before the delta %q; want the role's chunk once, then %q", before, got, "hi")
	}
	for stream.Next() {
	}
	if err := stream.Err(); err != nil || requests.Load() != 2 {
		t.Fatalf("Err() = %v after %d requests; want the failed stream sent again, then a complete answer", err, requests.Load())
	}
	if m := stream.Message(); m.Role != infergate.RoleAssistant || m.Content != "hi" {
		t.Errorf("message %+v, want the assistant saying hi", m)
	}
}

// The read-ahead is bounded: Stream returns once it holds 1 MiB of chunks without a delta, while the
// server is still sending, and the stream is then handed out as it is: every chunk still comes
// through Next, and a failure after that is reported by Err, never sent again.
func TestStreamReadAheadIsBounded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const chunks = 20_000 // each different, about 3 MB in all
		var requests atomic.Int32
		more := make(chan struct{})
		server := infergate.InProcessClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			if requests.Add(1) > 1 {
				_, _ = io.WriteString(w, content("hi")+ev(`{`+head+`,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))
				return
			}
			for i := range chunks {
				if _, err := io.WriteString(w, roleOnly(i)); err != nil {
					return
				}
			}
			select {
			case <-more:
				_, _ = io.WriteString(w, inBandFailure)
			case <-r.Context().Done():
			}
		}))
		var read atomic.Int64 // chunks the call has read
		count := infergate.WithObserver(func(ctx context.Context, _ infergate.Operation) (context.Context, *infergate.OperationHooks) {
			return ctx, &infergate.OperationHooks{Chunk: func(*infergate.ChatCompletionChunk) { read.Add(1) }}
		})
		c := testClient(t, "https://gw.test", infergate.WithHTTPClient(server), infergate.WithMaxRetries(1), count)

		type opened struct {
			stream *infergate.ChatStream
			err    error
		}
		done := make(chan opened, 1)
		go func() {
			stream, err := c.Chat.Stream(context.Background(), hello())
			done <- opened{stream, err}
		}()
		synctest.Wait()
		var o opened
		select {
		case o = <-done:
			if held := read.Load() * int64(len(strings.TrimSpace(roleOnly(chunks)))); held > 1<<20 {
				t.Errorf("Stream read %d chunks, %d bytes of events, before it returned; want at most 1 MiB", read.Load(), held)
			}
			close(more)
		default:
			t.Errorf("Stream still waits for a delta after %d chunks without one", read.Load())
			close(more)
			o = <-done
		}
		if o.err != nil {
			t.Fatal(o.err)
		}
		defer o.stream.Close()
		n := 0
		for o.stream.Next() {
			n++
		}
		var streamErr *infergate.StreamError
		if !errors.As(o.stream.Err(), &streamErr) || streamErr.Type != "retry_failed" {
			t.Errorf("Err() = %v, want the in-band retry_failed", o.stream.Err())
		}
		if n != chunks || requests.Load() != 1 {
			t.Errorf("Next handed out %d chunks of %d after %d requests; want all of them, from the one request", n, chunks, requests.Load())
		}
	})
}

// newStreamServer starts a loopback server whose every answer is an event stream written by write.
func newStreamServer(t *testing.T, write func(io.Writer)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		write(w)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
