package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

func TestChat(t *testing.T) {
	t.Parallel()
	thinking := gatewaytest.WithReplies(gatewaytest.Reply{Reasoning: "The user greets me.", Content: "Hello! How can I help?"})
	runGolden(t, []goldenCase{
		{name: "chat", args: []string{"chat", "-m", "llama-3.3-70b", "What", "is", "up?"}},
		{name: "chat-model-near-miss", args: []string{"chat", "-m", "llama-3.3-70b-instruct", "hi"}},
		{name: "chat-stdin", args: []string{"chat"}, stdin: "a question\non two lines\n"},
		{name: "chat-reasoning-piped", args: []string{"chat", "hi"}, opts: []gatewaytest.ServerOption{thinking}},
		{name: "chat-reasoning-terminal", args: []string{"chat", "hi"}, opts: []gatewaytest.ServerOption{thinking},
			term: terminals{out: true, err: true}},
		{name: "chat-json", args: []string{"chat", "--json", "hi"}, opts: []gatewaytest.ServerOption{thinking}},
		{name: "chat-no-message", args: []string{"chat"}},
		{name: "chat-interactive", args: []string{"chat", "--system", "Be brief."}, stdin: "first question\n\nsecond question\n",
			term: terminals{in: true, out: true, err: true}},
		{name: "chat-json-from-a-terminal", args: []string{"chat", "--json"}, stdin: "one question\n",
			term: terminals{in: true, out: true, err: true}},
		{name: "chat-interactive-piped-out", args: []string{"chat"}, stdin: "first question\n",
			term: terminals{in: true, err: true}},
		{name: "chat-in-band-error", args: []string{"chat", "hi"}, opts: []gatewaytest.ServerOption{gatewaytest.WithReplies(
			gatewaytest.Reply{Content: "a partial answer", Quirks: gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{
				After: 2, Message: "provider request failed", Type: "provider_error", Status: 502}}})}},
		{name: "chat-rate-limited-then-answered", args: []string{"chat", "hi"}, setup: func(s *gatewaytest.Server) {
			s.FailNext(1, gatewaytest.RateLimitErrorReply(5*time.Millisecond).On("/api/v1/chat/completions"))
		}},
		{name: "chat-rate-limited", args: []string{"chat", "hi"}, setup: func(s *gatewaytest.Server) {
			s.FailNext(3, gatewaytest.RateLimitErrorReply(5*time.Millisecond).On("/api/v1/chat/completions"))
		}},
	})
}

func TestChatSendsTheConversation(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.stdin, c.term = "first question\nsecond question\n", terminals{in: true}
	if r := c.run(context.Background(), "chat", "--system", "Be brief.", "-m", "qwen2.5-vl-72b"); r.code != exitOK {
		t.Fatalf("chat = %+v", r)
	}
	var reqs []gatewaytest.Request
	for _, r := range c.srv.Requests() {
		if r.Path == "/api/v1/chat/completions" {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests, want one per line", len(reqs))
	}
	last := reqs[1].JSON
	msgs, _ := last["messages"].([]any)
	if last["model"] != "qwen2.5-vl-72b" || last["stream"] != true || len(msgs) != 4 {
		t.Fatalf("second turn sent %s, want the model, a stream, and system + question + answer + question", reqs[1].Body)
	}
	roles := ""
	for _, m := range msgs {
		roles += m.(map[string]any)["role"].(string) + " "
	}
	if roles != "system user assistant user " {
		t.Errorf("roles of the second turn = %q", roles)
	}
}

// TestChatInterrupted cancels the context, as the first Ctrl-C does, while an answer streams: the
// call ends at once with the interrupted status, and the connection is closed, which the server
// sees.
func TestChatInterrupted(t *testing.T) {
	t.Parallel()
	disconnected := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",`+
			`"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest of the answer never comes
		close(disconnected)
	}))
	t.Cleanup(srv.Close)
	c := newCLI(t)
	c.env["INFERGATE_BASE_URL"] = srv.URL
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	stdout.onWrite = cancel // Ctrl-C once the answer has begun
	done := make(chan result)
	go func() { done <- c.runTo(ctx, &stdout, &stderr, "chat", "hi") }()
	select {
	case r := <-done:
		if r.code != exitInterrupted || !strings.HasSuffix(r.stderr, "\ninfergate: interrupted\n") || r.stdout != "Hello\n" {
			t.Errorf("interrupted chat = %+v, want the answer so far, status %d and one line", r, exitInterrupted)
		}
		<-disconnected
	case <-time.After(time.Minute): // a bound on a hang, not a wait: the run returns in milliseconds
		t.Fatal("the chat did not end when its context was cancelled")
	}
}

func TestChatInterruptedAtThePrompt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.term = terminals{in: true, out: true}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := c.run(ctx, "chat")
	if r.code != exitInterrupted {
		t.Errorf("chat interrupted at the prompt = %+v", r)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// TestChatInterruptedInAConversation: in a conversation, a Ctrl-C while an answer streams
// cancels that answer, which the server sees as a closed connection, and the conversation goes
// on to the next line; the interrupted turn is not sent again as history.
func TestChatInterruptedInAConversation(t *testing.T) {
	t.Parallel()
	srv := newStallingChat(t)
	c := newCLI(t)
	c.env["INFERGATE_BASE_URL"] = srv.url
	c.term = terminals{in: true, err: true} // the prompt on stderr: stdout's first write is the answer
	lines, typed := io.Pipe()
	c.in = lines
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := make(chan struct{})
	c.interrupts = &interrupter{cancelRun: cancel, exit: func() { close(exited) }}
	var stdout, stderr syncBuffer
	stdout.onWrite = c.interrupts.interrupt // Ctrl-C once the first answer has begun
	done := make(chan result)
	go func() { done <- c.runTo(ctx, &stdout, &stderr, "chat") }()
	go func() {
		_, _ = io.WriteString(typed, "first\n")
		<-srv.disconnected
		_, _ = io.WriteString(typed, "second\n")
		typed.Close() // Ctrl-D
	}()
	r := <-done
	if r.code != exitOK || ctx.Err() != nil {
		t.Errorf("conversation = %+v, want it to go on after the interrupted answer and end at Ctrl-D", r)
	}
	if !strings.Contains(r.stderr, "(interrupted: the answer is forgotten") {
		t.Errorf("stderr = %q, want the interruption said", r.stderr)
	}
	if bodies := srv.bodies(); len(bodies) != 2 || strings.Contains(bodies[1], "first") || !strings.Contains(bodies[1], "second") {
		t.Errorf("requests = %q, want the second turn without the interrupted one", bodies)
	}
	select {
	case <-exited:
		t.Error("one Ctrl-C exited the program")
	default:
	}
}

// TestInterrupter: a Ctrl-C cancels the answer streaming, else the run; one while a cancelled
// call has not ended exits.
func TestInterrupter(t *testing.T) {
	t.Parallel()
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	exits := 0
	in := &interrupter{cancelRun: cancelRun, exit: func() { exits++ }}
	turn, end := in.answer(runCtx)
	in.interrupt()
	if turn.Err() == nil || runCtx.Err() != nil || exits != 0 {
		t.Fatalf("first Ctrl-C during an answer: turn %v, run %v, exits %d; want the answer cancelled alone", turn.Err(), runCtx.Err(), exits)
	}
	in.interrupt() // the cancelled answer has not returned
	if exits != 1 {
		t.Fatalf("second Ctrl-C before the answer returned: exits %d, want 1", exits)
	}
	if !end() {
		t.Error("end() = false, want the answer reported interrupted")
	}
	turn, end = in.answer(runCtx)
	if end() || turn.Err() == nil {
		t.Error("an answer that ended by itself is reported interrupted, or its context lives on")
	}
	in.interrupt() // at the prompt
	if runCtx.Err() == nil || exits != 1 {
		t.Fatalf("Ctrl-C at the prompt: run %v, exits %d; want the run cancelled", runCtx.Err(), exits)
	}
	in.interrupt()
	if exits != 2 {
		t.Errorf("Ctrl-C after the run was cancelled: exits %d, want 2", exits)
	}
}

// stallingChat is a gateway whose first chat answer begins ("Hello") and never ends, until the
// client hangs up; later answers are "Hello" and [DONE]. It keeps every request body.
type stallingChat struct {
	url          string
	disconnected chan struct{} // closed once the client hung up on the first answer
	mu           sync.Mutex
	received     []string
}

func newStallingChat(t *testing.T) *stallingChat {
	s := &stallingChat{disconnected: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.received = append(s.received, string(body))
		first := len(s.received) == 1
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",`+
			`"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}`+"\n\n")
		if first {
			w.(http.Flusher).Flush()
			<-r.Context().Done() // the rest of the first answer never comes
			close(s.disconnected)
			return
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// bodies returns the request bodies received so far.
func (s *stallingChat) bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.received...)
}
