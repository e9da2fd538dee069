package einoinfergate_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

// randomReply is an answer with or without reasoning, content and parallel tool calls, streamed
// with a random set of the quirks providers have.
func randomReply(r *rand.Rand, n int) gatewaytest.Reply {
	var reply gatewaytest.Reply
	if r.IntN(2) == 0 {
		reply.Reasoning = strings.Repeat("think step by step ", 1+r.IntN(3))
	}
	if r.IntN(3) > 0 {
		reply.Content = fmt.Sprintf("Answer %d: it is ünïcode-safe and long enough to split.", n)
	}
	for i := range r.IntN(4) {
		reply.ToolCalls = append(reply.ToolCalls, gatewaytest.ToolCall{ID: fmt.Sprintf("call_%d_%d", n, i),
			Name: []string{"get_weather", "get_time", "lookup"}[i%3], Arguments: fmt.Sprintf(`{"city":"Zürich %d","n":%d}`, i, i)})
	}
	if r.IntN(5) == 0 {
		reply.ToolCalls = append(reply.ToolCalls, gatewaytest.ToolCall{ID: fmt.Sprintf("call_%d_empty", n), Name: "get_time", Arguments: "{}"})
	}
	reply.Usage = &gatewaytest.Usage{PromptTokens: r.IntN(100), CompletionTokens: r.IntN(100)}
	reply.Usage.TotalTokens = reply.Usage.PromptTokens + reply.Usage.CompletionTokens
	reply.Quirks = gatewaytest.Quirks{
		EmptyArgsFirst:      r.IntN(2) == 0,
		BlankIDs:            r.IntN(2) == 0,
		WholeToolCalls:      r.IntN(4) == 0,
		ArgChunkSize:        r.IntN(6),
		FinishOnLastDelta:   r.IntN(2) == 0,
		JunkLines:           r.IntN(3) == 0,
		NoUsageChunk:        r.IntN(3) == 0,
		CRLF:                r.IntN(3) == 0,
		Keepalive:           r.IntN(3) == 0,
		ChunkSize:           r.IntN(3) * 7,
		ContentParts:        r.IntN(3) == 0,
		ReasoningAs:         []string{"", "reasoning_content", "reasoning", "thinking"}[r.IntN(4)],
		InterleaveToolCalls: r.IntN(2) == 0,
	}
	return reply
}

// Whatever the provider's quirks, the streamed messages concatenate to what Generate returns.
func TestStreamConcatenatesToGenerate(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 60 {
		reply := randomReply(r, n)
		srv.Enqueue(reply, reply)
		want, err := m.Generate(context.Background(), question("q"))
		if err != nil {
			t.Fatalf("reply %d: Generate: %v", n, err)
		}
		got, msgs := streamed(t, m, question("q"))
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("reply %d %+v: concatenated stream (-Generate +Stream):\n%s", n, reply.Quirks, d)
		}
		if len(reply.ToolCalls) > 0 && len(want.ToolCalls) != len(reply.ToolCalls) {
			t.Fatalf("reply %d: %d tool calls, want %d", n, len(want.ToolCalls), len(reply.ToolCalls))
		}
		for i, tc := range want.ToolCalls {
			if tc.Index == nil || *tc.Index != i || tc.ID != reply.ToolCalls[i].ID || tc.Function.Arguments != reply.ToolCalls[i].Arguments {
				t.Fatalf("reply %d: tool call %d is %+v, want %+v at index %d", n, i, tc, reply.ToolCalls[i], i)
			}
		}
		for i, msg := range msgs {
			for _, tc := range msg.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("reply %d: message %d has a tool-call fragment without an index", n, i)
				}
			}
		}
	}
}

// What the fake does not script: fragments with no index and no id after the first, a "{}"
// placeholder, reasoning spelled "reasoning", and usage with cached and reasoning tokens.
const (
	rawChunkHead = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":`
	rawUsage     = `{"prompt_tokens":100,"completion_tokens":40,"total_tokens":140,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":30}}`
)

var rawToolStream = rawStream(
	rawChunkHead+`[{"index":0,"delta":{"role":"assistant","reasoning":"Two cities."}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"city\":"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"Rome\"}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"id":"call_y","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{"tool_calls":[{"id":"","function":{"arguments":"{\"city\":\"Bern\"}"}}]}}]}`,
	rawChunkHead+`[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	rawChunkHead+`[],"usage":`+rawUsage+`}`,
)

var rawToolAnswer = rawJSON(`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
	"message":{"role":"assistant","content":null,"reasoning":"Two cities.","tool_calls":[
	{"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}},
	{"id":"call_y","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Bern\"}"}}]},
	"finish_reason":"tool_calls"}],"usage":` + rawUsage + `}`)

func TestStreamWithoutIndexes(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.FailNext(1, rawToolAnswer)
	want, err := m.Generate(context.Background(), question("q"))
	if err != nil {
		t.Fatal(err)
	}
	srv.FailNext(1, rawToolStream)
	got, msgs := streamed(t, m, question("q"))
	wantCalls := []schema.ToolCall{
		{Index: infergate.Ptr(0), ID: "call_x", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}},
		{Index: infergate.Ptr(1), ID: "call_y", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Bern"}`}},
	}
	if d := cmp.Diff(wantCalls, got.ToolCalls); d != "" {
		t.Fatalf("streamed tool calls (-want +got):\n%s", d)
	}
	// ConcatMessages keeps no reasoning token count: the last message has it, and the rest is equal.
	last := msgs[len(msgs)-1].ResponseMeta.Usage
	if last == nil || last.CompletionTokensDetails.ReasoningTokens != 30 || last.PromptTokenDetails.CachedTokens != 64 {
		t.Fatalf("last message's usage %+v, want 64 cached and 30 reasoning tokens", last)
	}
	got.ResponseMeta.Usage.CompletionTokensDetails = want.ResponseMeta.Usage.CompletionTokensDetails
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("concatenated stream (-Generate +Stream):\n%s", d)
	}
}

// An error event after the answer began ends the reader with the SDK's *infergate.StreamError.
func TestStreamErrorThroughRecv(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.Enqueue(gatewaytest.Reply{Content: "one two three four", Quirks: gatewaytest.Quirks{
		InBandError: &gatewaytest.StreamErrorEvent{After: 3, Message: "provider went away", Status: 502}}})
	sr, err := m.Stream(context.Background(), question("q"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := drain(sr)
	var se *infergate.StreamError
	if !errors.As(err, &se) || se.StatusCode != 502 || !errors.Is(err, infergate.ErrIncompleteStream) {
		t.Fatalf("Recv error %v, want an *infergate.StreamError with status 502", err)
	}
	if len(msgs) == 0 || msgs[0].Content != "one " {
		t.Fatalf("messages before the error: %v", msgs)
	}
}

// A reader closed early stops the goroutine reading the answer at the next event: it closes the
// response body long before the end of a long answer, instead of reading the rest for nothing (and
// TestMain checks that no goroutine is left).
func TestStreamClosedEarly(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t)
	body := &watchedBody{closed: make(chan struct{})}
	client := srv.Client(infergate.WithHTTPClient(&http.Client{Transport: body}))
	m, err := einoinfergate.NewChatModel(client, gatewaytest.DefaultModel)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(gatewaytest.Reply{Content: strings.Repeat("word ", 4000)})
	sr, err := m.Stream(context.Background(), question("q"))
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := sr.Recv(); err != nil || msg.Content != "word " {
		t.Fatalf("first message %v, %v", msg, err)
	}
	sr.Close()
	<-body.closed
	if read, total := body.read.Load(), body.total.Load(); total <= 0 || read > total/2 {
		t.Fatalf("the body was closed after %d of its %d bytes were read, want it closed early", read, total)
	}
}

// watchedBody is a transport that notes how much of a streamed response body is read before the
// body is closed, and its whole length, read to its end in advance.
type watchedBody struct {
	read, total atomic.Int64
	closed      chan struct{}
}

func (w *watchedBody) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || resp.Header.Get("Content-Type") != "text/event-stream" {
		return resp, err
	}
	all, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	w.total.Store(int64(len(all)))
	resp.Body = &countingReader{r: bytes.NewReader(all), w: w}
	return resp, nil
}

type countingReader struct {
	r    *bytes.Reader
	w    *watchedBody
	once sync.Once
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.w.read.Add(int64(n))
	return n, err
}

func (c *countingReader) Close() error {
	c.once.Do(func() { close(c.w.closed) })
	return nil
}

// The answer's first events arrive in one write and the rest never do: canceling the context ends
// the reader with the context's error, and the goroutine reading the answer with it.
func TestStreamContextCanceled(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.Enqueue(gatewaytest.Reply{Content: strings.Repeat("word ", 100), Quirks: gatewaytest.Quirks{Delay: 1 << 40, ChunkSize: 600}})
	ctx, cancel := context.WithCancel(context.Background())
	sr, err := m.Stream(ctx, question("q"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.Recv(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := drain(sr); !errors.Is(err, context.Canceled) {
		t.Fatalf("error after cancel %v, want context.Canceled", err)
	}
}

// An answer without a single choice (a 200 whose choices are empty) is an error from Generate and
// from the stream's last Recv, as in eino-ext's model, not an empty message an agent would take
// for the model's last word.
func TestAnswerWithoutChoices(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.FailNext(1, rawJSON(`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[],"usage":`+rawUsage+`}`))
	if msg, err := m.Generate(context.Background(), question("q")); err == nil || !strings.Contains(err.Error(), "no choice") {
		t.Fatalf("Generate gave %v, %v; want an error saying the answer has no choice", msg, err)
	}
	srv.FailNext(1, rawStream(rawChunkHead+`[],"usage":`+rawUsage+`}`))
	sr, err := m.Stream(context.Background(), question("q"))
	if err != nil {
		t.Fatal(err)
	}
	if msgs, err := drain(sr); err == nil || !strings.Contains(err.Error(), "no choice") || len(msgs) != 0 {
		t.Fatalf("Stream gave %v, %v; want no message and an error saying the answer has no choice", msgs, err)
	}
}

// A stream whose first attempt fails is sent again by the SDK, under the same idempotency key,
// and the reader only sees the answer of the attempt that succeeded.
func TestStreamRetriedUnderOneKey(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusServiceUnavailable, "busy"))
	srv.Enqueue(gatewaytest.Reply{Content: "second time lucky"})
	if got, _ := streamed(t, m, question("q")); got.Content != "second time lucky" {
		t.Fatalf("content %q", got.Content)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Idempotency-Key") == "" ||
		reqs[0].Header.Get("Idempotency-Key") != reqs[1].Header.Get("Idempotency-Key") {
		t.Fatalf("%d attempts, want 2 under one idempotency key", len(reqs))
	}
}
