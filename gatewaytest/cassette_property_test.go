package gatewaytest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// randomSession scripts a fake with random chat turns (plain, streamed with
// tool calls and quirks, some failing first) and returns the setup and the
// user code that observes them.
func randomSession(r *rand.Rand) (func(*gatewaytest.Server), session) {
	type step struct {
		stream bool
		reply  gatewaytest.Reply
		fail   *gatewaytest.ErrorReply
		prompt string
	}
	words := []string{"alpha", "beta", "gamma", "delta", "épsilon", "\"quoted\"", "<tag>", "🙂"}
	text := func() string {
		s := ""
		for range 1 + r.IntN(8) {
			s += words[r.IntN(len(words))] + " "
		}
		return s
	}
	failures := []gatewaytest.ErrorReply{
		gatewaytest.RateLimitErrorReply(time.Millisecond),
		gatewaytest.DetailErrorReply(503, "overloaded"),
		gatewaytest.DetailErrorReply(400, "bad request"),
		gatewaytest.StringErrorReply(500, "boom"),
	}
	steps := make([]step, 1+r.IntN(6))
	for i := range steps {
		s := step{stream: r.IntN(2) == 0, prompt: fmt.Sprint(i, text())}
		s.reply.Content = text()
		if r.IntN(3) == 0 {
			for j := range 1 + r.IntN(3) {
				s.reply.ToolCalls = append(s.reply.ToolCalls, gatewaytest.ToolCall{
					ID: fmt.Sprint("call_", j), Name: "f", Arguments: fmt.Sprintf(`{"x":%q}`, text()),
				})
			}
		}
		s.reply.Quirks = gatewaytest.Quirks{
			EmptyArgsFirst: r.IntN(2) == 0, CRLF: r.IntN(4) == 0, Keepalive: r.IntN(4) == 0,
			NoDone: r.IntN(4) == 0, InterleaveToolCalls: r.IntN(2) == 0,
		}
		if r.IntN(5) == 0 {
			s.reply.Quirks.InBandError = &gatewaytest.StreamErrorEvent{After: r.IntN(4), Status: 502}
		}
		if r.IntN(3) == 0 {
			f := failures[r.IntN(len(failures))].On("/api/v1/chat/completions")
			s.fail = &f
		}
		steps[i] = s
	}
	run := func(ctx context.Context, c *infergate.Client) (string, error) {
		var out []any
		for _, s := range steps {
			req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage(s.prompt)}}
			if !s.stream {
				resp, err := c.Chat.Create(ctx, req)
				if err != nil {
					out = append(out, err.Error())
					continue
				}
				out = append(out, resp)
				continue
			}
			got, err := streamChat(ctx, c, req)
			if err != nil {
				got = err.Error()
			}
			out = append(out, got)
		}
		return asJSON(out...)
	}
	// The failures answer the session's first calls, some retried, some not.
	setup := func(srv *gatewaytest.Server) {
		for _, s := range steps {
			srv.Enqueue(s.reply)
			if s.fail != nil {
				srv.FailNext(1, *s.fail)
			}
		}
	}
	return setup, run
}

func TestCassettePropertyRecordReplayIdentical(t *testing.T) {
	t.Parallel()
	offsets := regexp.MustCompile(`"offset_ms": \d+`)
	for seed := range uint64(25) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			setup, run := randomSession(rand.New(rand.NewPCG(seed, 33)))
			path := recordThenReplay(t, setup, run, gatewaytest.WithChunkSize(1+int(seed%7)))
			// Recording the same session again writes the same file, but for
			// the time the events took.
			setup2, run2 := randomSession(rand.New(rand.NewPCG(seed, 33)))
			again := filepath.Join(t.TempDir(), "again.json")
			fake := gatewaytest.NewServer(gatewaytest.WithChunkSize(1 + int(seed%7)))
			defer fake.Close()
			setup2(fake)
			c := openCassette(t, again, gatewaytest.CassetteRecord)
			run2(context.Background(), fake.Client(c.Option()))
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(path)
			b, _ := os.ReadFile(again)
			if offsets.ReplaceAllString(string(a), "") != offsets.ReplaceAllString(string(b), "") {
				t.Fatalf("recording twice gave two files:\n%s\n----\n%s", a, b)
			}
		})
	}
}
