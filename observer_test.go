package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// recorder is an Observer that keeps what it was told.
type recorder struct {
	mu       sync.Mutex
	ops      []infergate.Operation
	ends     []infergate.OperationEnd
	chunks   int
	attempts int
}

func (r *recorder) observe(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
	return ctx, &infergate.OperationHooks{
		Attempt: func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			r.mu.Lock()
			r.attempts++
			r.mu.Unlock()
			return next(req)
		},
		Chunk: func(*infergate.ChatCompletionChunk) {
			r.mu.Lock()
			r.chunks++
			r.mu.Unlock()
		},
		End: func(end infergate.OperationEnd) {
			r.mu.Lock()
			r.ends = append(r.ends, end)
			r.mu.Unlock()
		},
	}
}

const observedStream = `data: {"id":"s1","model":"m-1","choices":[{"index":0,"delta":{"content":"Hel"}}]}

data: {"id":"s1","model":"m-1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}

data: {"id":"s1","model":"m-1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}

data: [DONE]

`

func observedServer(t *testing.T) *httptest.Server {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v1/embeddings":
			io.WriteString(w, `{"object":"list","model":"e-1","data":[{"index":0,"embedding":[0.5,1]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`)
		case strings.Contains(r.Header.Get("Accept"), "event-stream"):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, observedStream)
		case hits.Add(1) == 1:
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			io.WriteString(w, `{"id":"c1","model":"m-1","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An observer sees each operation once, from start to end: a retried call is one operation with
// two attempts; a stream's end comes when it is read to its end, with its usage and chunk count.
func TestObserverSeesWholeOperations(t *testing.T) {
	t.Parallel()
	srv := observedServer(t)
	rec := &recorder{}
	c := testClient(t, srv.URL, infergate.WithMaxRetries(2), infergate.WithObserver(rec.observe))
	ctx := context.Background()

	if _, err := c.Chat.Create(ctx, hello()); err != nil {
		t.Fatal(err)
	}
	st, err := c.Chat.Stream(ctx, hello())
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	endsBefore := len(rec.ends)
	rec.mu.Unlock()
	for st.Next() {
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: "e-1", Input: []string{"x"}}); err != nil {
		t.Fatal(err)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if endsBefore != 1 {
		t.Errorf("the stream's operation ended before the stream was read (%d ends)", endsBefore)
	}
	names := []infergate.OperationName{}
	for _, op := range rec.ops {
		names = append(names, op.Name)
	}
	if !slices.Equal(names, []infergate.OperationName{infergate.OperationChat, infergate.OperationChat, infergate.OperationEmbeddings}) {
		t.Fatalf("operations = %v", names)
	}
	if op := rec.ops[1]; !op.Stream || op.Model != "llama-3.3-70b" || op.Path != "/chat/completions" || op.ServerAddress != "127.0.0.1" || op.ServerPort == 0 {
		t.Errorf("stream operation = %+v", op)
	}
	if len(rec.ends) != 3 {
		t.Fatalf("%d ends, want 3", len(rec.ends))
	}
	create, stream, embed := rec.ends[0], rec.ends[1], rec.ends[2]
	if create.Err != nil || create.Attempts != 2 || create.ResponseID != "c1" || create.Usage == nil || create.Usage.PromptTokens != 4 ||
		!slices.Equal(create.FinishReasons, []infergate.FinishReason{infergate.FinishReasonStop}) {
		t.Errorf("Create's end = %+v", create)
	}
	if stream.Err != nil || stream.Chunks != 3 || stream.FirstChunk.IsZero() || stream.ResponseModel != "m-1" ||
		stream.Usage == nil || stream.Usage.CompletionTokens != 2 {
		t.Errorf("Stream's end = %+v", stream)
	}
	if embed.ResponseModel != "e-1" || embed.Usage == nil || embed.Usage.PromptTokens != 2 {
		t.Errorf("Embeddings' end = %+v", embed)
	}
	if rec.chunks != 3 || rec.attempts != 4 {
		t.Errorf("chunks = %d, attempts = %d; want 3 and 4", rec.chunks, rec.attempts)
	}
}

// An observer that wants no chunk still learns how many chunks came and when the first one did.
func TestObserverCountsChunksWithoutAChunkHook(t *testing.T) {
	t.Parallel()
	srv := observedServer(t)
	var ends []infergate.OperationEnd
	var started time.Time
	observer := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		started = time.Now()
		return ctx, &infergate.OperationHooks{End: func(e infergate.OperationEnd) { ends = append(ends, e) }}
	}
	c := testClient(t, srv.URL, infergate.WithObserver(observer))
	st, err := c.Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	for st.Next() {
	}
	finished := time.Now()
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ends) != 1 {
		t.Fatalf("%d ends, want 1", len(ends))
	}
	if e := ends[0]; e.Chunks != 3 || e.FirstChunk.Before(started) || e.FirstChunk.After(finished) {
		t.Errorf("end = %d chunks, first at %v; want 3, between %v and %v", e.Chunks, e.FirstChunk, started, finished)
	}
}

// A stream closed early, and one whose context ends, each end their operation once, with the reason.
func TestObserverEndsAbandonedStreams(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"s1","choices":[{"index":0,"delta":{"content":"Hel"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	for _, how := range []string{"close", "cancel"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			c := testClient(t, srv.URL)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ended := make(chan struct{})
			observe := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
				ctx, hooks := rec.observe(ctx, op)
				end := hooks.End
				hooks.End = func(e infergate.OperationEnd) { end(e); close(ended) }
				return ctx, hooks
			}
			st, err := c.Chat.Stream(ctx, hello(), infergate.WithObserver(observe))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			st.Next()
			if how == "close" {
				st.Close()
			} else {
				cancel() // the stream is left unread: its context alone ends the operation
			}
			<-ended
			st.Close()
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.ends) != 1 || !errors.Is(rec.ends[0].Err, context.Canceled) || rec.ends[0].Chunks != 1 ||
				len(rec.ends[0].FinishReasons) != 0 || rec.ends[0].ResponseID != "s1" {
				t.Errorf("ends = %+v; want one, context.Canceled, after 1 chunk, id s1, no finish reason", rec.ends)
			}
		})
	}
}

// A failed call ends its operation with the typed error and its status.
func TestObserverSeesErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-9")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"bad model"}}`)
	}))
	defer srv.Close()
	rec := &recorder{}
	c := testClient(t, srv.URL, infergate.WithObserver(rec.observe))
	_, err := c.Chat.Create(context.Background(), hello())
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var apiErr *infergate.APIError
	if len(rec.ends) != 1 || !errors.As(rec.ends[0].Err, &apiErr) || rec.ends[0].StatusCode != 400 ||
		rec.ends[0].RequestID != "req-9" || err == nil {
		t.Errorf("ends = %+v", rec.ends)
	}
}

// A tool loop is one operation whose context holds its model turns and tool calls, so that spans
// started by an observer nest: invoke_agent, then chat and execute_tool inside it.
func TestObserverNestsToolLoops(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{ID: "w", Name: "weather", Arguments: `{"city":"Paris"}`},
		{ID: "x", Name: "missing", Arguments: `{}`},
	}}, gatewaytest.Reply{Content: "done"})
	type parentKey struct{}
	var mu sync.Mutex
	var seen []string
	observe := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		parent, _ := ctx.Value(parentKey{}).(string)
		name := string(op.Name)
		if op.Tool != nil {
			name += " " + op.Tool.Function.Name
		}
		return context.WithValue(ctx, parentKey{}, string(op.Name)), &infergate.OperationHooks{End: func(e infergate.OperationEnd) {
			mu.Lock()
			defer mu.Unlock()
			status := "ok"
			if e.Err != nil {
				status = "error"
			}
			seen = append(seen, parent+">"+name+":"+status)
		}}
	}
	run := gw.Client().Chat.RunTools(context.Background(), hello(),
		infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}}, infergate.WithObserver(observe))
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(seen)
	want := []string{">invoke_agent:ok", "invoke_agent>chat:ok", "invoke_agent>chat:ok",
		"invoke_agent>execute_tool missing:error", "invoke_agent>execute_tool weather:ok"}
	if !slices.Equal(seen, want) {
		t.Errorf("operations = %q\nwant %q", seen, want)
	}
}

// errRefused stands for a transport failure a retry policy tells apart by identity.
var errRefused = errors.New("refused")

// An attempt hook sees a failed attempt's error as callers see it, credential redacted, while the
// error still is what it was.
func TestObserverAttemptSeesRedactedErrors(t *testing.T) {
	t.Parallel()
	const key = "sk-transport-key"
	var failing roundTripFunc = func(req *http.Request) (*http.Response, error) {
		return nil, fmt.Errorf("proxy said %q: %w", req.Header.Get("Authorization"), errRefused)
	}
	var mu sync.Mutex
	var seen []error
	observe := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		return ctx, &infergate.OperationHooks{Attempt: func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			resp, err := next(req)
			mu.Lock()
			seen = append(seen, err)
			mu.Unlock()
			return resp, err
		}}
	}
	c := testClient(t, "https://gw.test", infergate.WithAPIKey(key), infergate.WithMaxRetries(1),
		infergate.WithHTTPClient(&http.Client{Transport: failing}), infergate.WithObserver(observe))
	_, err := c.Chat.Create(context.Background(), hello())
	if !errors.Is(err, errRefused) || strings.Contains(err.Error(), key) {
		t.Errorf("caller's error = %v; want errRefused, without the key", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("hook saw %d attempts, want 2", len(seen))
	}
	for _, err := range seen {
		if err == nil || strings.Contains(err.Error(), key) || !errors.Is(err, errRefused) {
			t.Errorf("hook saw %v; want errRefused, without the key", err)
		}
	}
}

// A speech answer left unread ends its operation when its context ends, as a stream does.
func TestObserverEndsUnreadSpeech(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/mpeg")
		w.Write([]byte("ID3 audio"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	ended := make(chan infergate.OperationEnd, 1)
	observe := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		if op.Name != infergate.OperationSpeech {
			return ctx, nil
		}
		return ctx, &infergate.OperationHooks{End: func(e infergate.OperationEnd) { ended <- e }}
	}
	c := testClient(t, srv.URL, infergate.WithObserver(observe))
	ctx, cancel := context.WithCancel(context.Background())
	audio, err := c.Audio.Speech(ctx, infergate.SpeechRequest{Model: "tts-1", Input: "hi", Voice: "alloy"})
	if err != nil {
		t.Fatal(err)
	}
	defer audio.Close()
	cancel()
	if e := <-ended; !errors.Is(e.Err, context.Canceled) {
		t.Errorf("speech ended with %v, want context.Canceled", e.Err)
	}
}

// An embeddings answer without token counts ends without Usage, so that no zero is reported as sent.
func TestObserverEmbeddingsWithoutUsage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","model":"e-1","data":[{"index":0,"embedding":[0.5]}]}`)
	}))
	t.Cleanup(srv.Close)
	rec := &recorder{}
	c := testClient(t, srv.URL, infergate.WithObserver(rec.observe))
	if _, err := c.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Model: "e-1", Input: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.ends) != 1 || rec.ends[0].Usage != nil || rec.ends[0].ResponseModel != "e-1" {
		t.Errorf("ends = %+v; want one, model e-1, no usage", rec.ends)
	}
}

// A tool loop the caller stops ends its operation as cancelled, the error Err then reports.
func TestObserverSeesAStoppedLoopAsCancelled(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "w", Name: "weather", Arguments: `{"city":"Paris"}`}}},
		gatewaytest.Reply{Content: "done"})
	var mu sync.Mutex
	var loopEnd []error
	observe := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		if op.Name != infergate.OperationInvokeAgent {
			return ctx, nil
		}
		return ctx, &infergate.OperationHooks{End: func(e infergate.OperationEnd) {
			mu.Lock()
			defer mu.Unlock()
			loopEnd = append(loopEnd, e.Err)
		}}
	}
	run := gw.Client().Chat.RunTools(context.Background(), hello(),
		infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}}, infergate.WithObserver(observe))
	for range run.Events() {
		break
	}
	mu.Lock()
	defer mu.Unlock()
	if len(loopEnd) != 1 || loopEnd[0] != context.Canceled {
		t.Errorf("the loop ended with %v; want exactly context.Canceled", loopEnd)
	}
}

// An observer that returns no context leaves the call its own.
func TestObserverReturningNoContext(t *testing.T) {
	t.Parallel()
	srv := observedServer(t)
	var ended atomic.Int32
	observe := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		return nil, &infergate.OperationHooks{End: func(infergate.OperationEnd) { ended.Add(1) }}
	}
	c := testClient(t, srv.URL, infergate.WithObserver(observe))
	st, err := c.Chat.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	for st.Next() {
	}
	if err := st.Err(); err != nil || ended.Load() != 1 {
		t.Errorf("stream err %v, %d ends; want nil and 1", err, ended.Load())
	}
}
