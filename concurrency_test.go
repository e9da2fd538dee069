package infergate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSharedClient uses one Client from many goroutines at once, mixing plain calls and streams,
// per-call options and retries, and checks under -race that no call sees another's answer or
// header. One Client per process is the intended use.
func TestSharedClient(t *testing.T) {
	checkGoroutines(t)
	echo := echoHandler(t)
	var attempts sync.Map // text -> tries so far; every fifth request fails once with a 503
	srv := newCountedServer(t, func(hit int64, w http.ResponseWriter, r *http.Request) {
		caller := r.Header.Get("X-Caller")
		if n, _ := attempts.LoadOrStore(caller, new(atomic.Int64)); strings.HasSuffix(caller, "0") || strings.HasSuffix(caller, "5") {
			if n.(*atomic.Int64).Add(1) == 1 {
				failWith(http.StatusServiceUnavailable)(w)
				return
			}
		}
		echo(hit, w, r)
	})
	client, _ := newTestClient(t, srv.URL, WithHeader("X-Client", "shared"))
	const workers, perWorker = 16, 25
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				text := fmt.Sprintf("w%d-%d", g, i)
				opts := []Option{WithHeader("X-Caller", text), WithTimeout(20 * time.Second), WithMaxRetries(1 + i%3)}
				var got string
				var err error
				if i%2 == 0 {
					got, err = streamText(context.Background(), client, text, opts...)
				} else {
					var resp *ChatCompletion
					if resp, err = client.Chat.Create(context.Background(), ChatRequest{Messages: []Message{UserMessage(text)}}, opts...); err == nil {
						got = resp.Text()
					}
				}
				if err != nil || got != "echo: "+text {
					t.Errorf("%s: got %q, %v", text, got, err)
				}
			}
		}()
	}
	wg.Wait()
	failedOnce := int64(workers * perWorker / 5)
	if hits := srv.hits.Load(); hits != workers*perWorker+failedOnce {
		t.Errorf("server saw %d requests, want %d calls plus %d retries", hits, workers*perWorker, failedOnce)
	}
}

// TestStreamCancelledFromAnotherGoroutine checks the supported way to stop a stream that another
// goroutine is reading: cancel its context. The reader's Next returns false and Err says why.
func TestStreamCancelledFromAnotherGoroutine(t *testing.T) {
	checkGoroutines(t)
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		_, _ = w.Write([]byte(sseEvents(contentChunk("first", ""))))
		w.(http.Flusher).Flush()
		stall(r)
	})
	client, _ := newTestClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.Chat.Stream(ctx, ChatRequest{Messages: []Message{UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if !stream.Next() || stream.Current().Text() != "first" {
		t.Fatalf("first chunk: %v", stream.Err())
	}
	go cancel()
	if within(t, 10*time.Second, stream.Next) {
		t.Fatal("Next returned a chunk after cancellation")
	}
	if err := stream.Err(); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrIncompleteStream) {
		t.Fatalf("Err = %v, want context.Canceled and ErrIncompleteStream", err)
	}
	if got := stream.Completion().Text(); got != "first" {
		t.Errorf("Completion kept %q, want %q", got, "first")
	}
}
