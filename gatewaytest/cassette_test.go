package gatewaytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// offline is a client that cannot reach any gateway: only a cassette can
// answer it. Its credentials differ from the recording's, as in CI.
func offline(t testing.TB, c *gatewaytest.Cassette, opts ...infergate.Option) *infergate.Client {
	t.Helper()
	base := []infergate.Option{
		infergate.WithBaseURL("http://127.0.0.1:9"),
		infergate.WithAPIKey("replay-api-key"),
		infergate.WithAccessToken("replay-access-token"),
		infergate.WithRetryBackoff(time.Millisecond, 10*time.Millisecond),
	}
	// The caller's middleware goes outside the cassette, to see its answers.
	base = append(append(base, opts...), c.Option())
	client, err := infergate.NewClient(base...)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func openCassette(t testing.TB, path string, mode gatewaytest.CassetteMode, opts ...gatewaytest.CassetteOption) *gatewaytest.Cassette {
	t.Helper()
	c, err := gatewaytest.OpenCassetteWith(path, mode, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// session is a piece of user code: it returns what it observed, as JSON.
type session func(ctx context.Context, c *infergate.Client) (string, error)

// recordThenReplay runs s against the fake through a recording cassette,
// then again with the fake closed through a replaying one, and checks both
// runs observed the same. It returns the cassette's path.
func recordThenReplay(t *testing.T, setup func(*gatewaytest.Server), s session, opts ...gatewaytest.ServerOption) string {
	t.Helper()
	return recordThenReplayWith(t, setup, s, nil, opts...)
}

// recordThenReplayWith is recordThenReplay with client options (middleware,
// say) put outside the cassette in both runs.
func recordThenReplayWith(t *testing.T, setup func(*gatewaytest.Server), s session, clientOpts []infergate.Option, opts ...gatewaytest.ServerOption) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cassette.json")
	fake := gatewaytest.NewServer(opts...)
	if setup != nil {
		setup(fake)
	}
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	live, liveErr := s(context.Background(), fake.Client(append(slices.Clone(clientOpts), rec.Option())...))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	fake.Close()

	play := openCassette(t, path, gatewaytest.CassetteReplay)
	replayed, replayErr := s(context.Background(), offline(t, play, clientOpts...))
	if err := play.Close(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(liveErr) != fmt.Sprint(replayErr) {
		t.Fatalf("error live %v, replayed %v", liveErr, replayErr)
	}
	if live != replayed {
		t.Fatalf("live and replayed runs differ:\n live: %s\nreplay: %s", live, replayed)
	}
	return path
}

func asJSON(vs ...any) (string, error) {
	b, err := json.Marshal(vs)
	return string(b), err
}

var chatReq = infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Capital of France?")}}

func TestCassetteReplaysChat(t *testing.T) {
	t.Parallel()
	path := recordThenReplay(t, func(s *gatewaytest.Server) { s.Enqueue(gatewaytest.Reply{Content: "Paris"}) },
		func(ctx context.Context, c *infergate.Client) (string, error) {
			resp, err := c.Chat.Create(ctx, chatReq)
			if err != nil {
				return "", err
			}
			return asJSON(resp, resp.Text())
		})
	// The file is for people: the request and answer are JSON, not strings.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version      int `json:"version"`
		Interactions []struct {
			Request  struct{ JSON map[string]any }
			Response struct{ JSON map[string]any }
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != gatewaytest.CassetteFormatVersion || len(doc.Interactions) != 1 {
		t.Fatalf("version %d, %d interactions, want 1", doc.Version, len(doc.Interactions))
	}
	if doc.Interactions[0].Request.JSON["model"] != "llama-3.3-70b" || doc.Interactions[0].Response.JSON["choices"] == nil {
		t.Fatalf("request and answer are not readable JSON:\n%s", b)
	}
}

func streamSession(ctx context.Context, c *infergate.Client) (string, error) {
	return streamChat(ctx, c, chatReq)
}

// streamChat streams req and returns every raw event and the reassembled
// completion, as JSON.
func streamChat(ctx context.Context, c *infergate.Client, req infergate.ChatRequest) (string, error) {
	st, err := c.Chat.Stream(ctx, req)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var raw []string
	for st.Next() {
		raw = append(raw, string(st.RawEvent()))
	}
	if err := st.Err(); err != nil {
		return "", err
	}
	return asJSON(raw, st.Completion())
}

func TestCassetteReplaysStreamWithToolCalls(t *testing.T) {
	t.Parallel()
	path := recordThenReplay(t, func(s *gatewaytest.Server) {
		s.Enqueue(gatewaytest.Reply{
			Content:   "Looking it up.",
			ToolCalls: []gatewaytest.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`}},
			Quirks:    gatewaytest.Quirks{EmptyArgsFirst: true, CRLF: true},
		})
	}, streamSession, gatewaytest.WithChunkSize(3))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Interactions []struct {
			Response struct {
				Events []struct {
					Raw string `json:"raw"`
				} `json:"events"`
			} `json:"response"`
		} `json:"interactions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	evs := doc.Interactions[0].Response.Events
	if len(evs) < 5 {
		t.Fatalf("stream kept as %d events, want one entry per event:\n%s", len(evs), b)
	}
	for _, e := range evs {
		if !strings.HasSuffix(e.Raw, "\r\n\r\n") {
			t.Fatalf("event %q is not whole, or lost its CRLF", e.Raw)
		}
	}
}

// TestCassetteReplaysStreamEventByEvent reads the replayed body directly:
// each read returns at most one event, as a live stream's flushes do.
func TestCassetteReplaysStreamEventByEvent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	fake := gatewaytest.NewServer()
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	fake.Enqueue(gatewaytest.Reply{Content: "one two three four"})
	if _, err := streamSession(context.Background(), fake.Client(rec.Option())); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	fake.Close()

	play := openCassette(t, path, gatewaytest.CassetteReplay)
	var reads []string
	spy := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		resp, err := next(req)
		if err == nil {
			resp.Body = readSpy{resp.Body, &reads}
		}
		return resp, err
	}
	if _, err := streamSession(context.Background(), offline(t, play, infergate.WithMiddleware(spy))); err != nil {
		t.Fatal(err)
	}
	if len(reads) < 4 {
		t.Fatalf("%d reads, want one per event", len(reads))
	}
	for _, r := range reads {
		if strings.Count(r, "\n\n") != 1 || !strings.HasSuffix(r, "\n\n") {
			t.Fatalf("a read returned %q, not exactly one event", r)
		}
	}
}

type readSpy struct {
	io.ReadCloser
	reads *[]string
}

func (r readSpy) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		*r.reads = append(*r.reads, string(p[:n]))
	}
	return n, err
}

func TestCassetteReplaysEveryRoute(t *testing.T) {
	t.Parallel()
	recordThenReplay(t, nil, func(ctx context.Context, c *infergate.Client) (string, error) {
		var out []any
		add := func(v any, err error) error {
			if err != nil {
				return err
			}
			out = append(out, v)
			return nil
		}
		models, err := c.Models.List(ctx)
		if err := add(models, err); err != nil {
			return "", err
		}
		emb, err := c.Embeddings.Create(ctx, infergate.EmbeddingRequest{Input: []string{"a", "b"}})
		if err := add(emb, err); err != nil {
			return "", err
		}
		tr, err := c.Audio.Transcribe(ctx, infergate.TranscriptionRequest{File: strings.NewReader("...audio bytes..."), FileName: "clip.wav", Language: "en"})
		if err := add(tr, err); err != nil {
			return "", err
		}
		audio, err := c.Audio.Speak(ctx, infergate.SpeechRequest{Input: "Hello", ResponseFormat: infergate.SpeechFormatWAV})
		if err != nil {
			return "", err
		}
		wav, err := io.ReadAll(audio)
		audio.Close()
		if err := add(wav, err); err != nil {
			return "", err
		}
		bids, err := c.Bids.Rated(ctx, "llama-3.3-70b")
		if err := add(bids, err); err != nil {
			return "", err
		}
		sess, err := c.Sessions.CreateForModel(ctx, "llama-3.3-70b", infergate.SessionOptions{Duration: time.Hour})
		if err := add(sess, err); err != nil {
			return "", err
		}
		chat, err := c.History.Create(ctx, "Trip")
		if err := add(chat, err); err != nil {
			return "", err
		}
		msg, err := c.History.AddMessage(ctx, chat.ID, infergate.AddMessageRequest{Role: infergate.RoleUser, Content: "hi"})
		if err := add(msg, err); err != nil {
			return "", err
		}
		for m, err := range c.History.Messages(ctx, chat.ID) {
			if err := add(m, err); err != nil {
				return "", err
			}
		}
		bal, err := c.Billing.Balance(ctx)
		if err := add(bal, err); err != nil {
			return "", err
		}
		key, err := c.Keys.Create(ctx, "ci")
		if err != nil {
			return "", err
		}
		keys, err := c.Keys.List(ctx)
		if err := add([]any{key.KeyPrefix, key.Name, keys}, err); err != nil {
			return "", err
		}
		h, err := c.Health.Check(ctx)
		if err := add(h, err); err != nil {
			return "", err
		}
		return asJSON(out...)
	})
}

// A 429 then a 200 replays as a 429 then a 200: the SDK retries on the
// replayed answer as it did on the live one.
func TestCassetteReplaysErrorsThenRetry(t *testing.T) {
	t.Parallel()
	var attempts []int
	spy := infergate.WithMiddleware(func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		resp, err := next(req)
		if err == nil {
			attempts = append(attempts, resp.StatusCode)
		}
		return resp, err
	})
	path := recordThenReplayWith(t, func(s *gatewaytest.Server) {
		s.FailNext(1, gatewaytest.RateLimitErrorReply(time.Millisecond).On("/api/v1/chat/completions"))
		s.FailNext(1, gatewaytest.DetailErrorReply(404, "no such chat").On("/api/v1/chats/c-1"))
		s.Enqueue(gatewaytest.Reply{Content: "Paris"})
	}, func(ctx context.Context, c *infergate.Client) (string, error) {
		attempts = nil
		resp, err := c.Chat.Create(ctx, chatReq)
		if err != nil {
			return "", err
		}
		if !slices.Equal(attempts, []int{429, 200}) {
			return "", fmt.Errorf("attempts answered %v, want [429 200]", attempts)
		}
		_, getErr := c.History.Get(ctx, "c-1")
		var apiErr *infergate.APIError
		if !errors.As(getErr, &apiErr) {
			return "", fmt.Errorf("History.Get: %v, want an *APIError", getErr)
		}
		return asJSON(attempts, resp.Text(), apiErr.StatusCode, getErr.Error())
	}, []infergate.Option{spy})
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), `"status": 429`); n != 1 {
		t.Fatalf("%d 429 answers in the file, want 1:\n%s", n, b)
	}
}
