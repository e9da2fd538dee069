package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
)

// modelGateway answers chat requests by the model they name: each model has its own script, run
// with the request's attempt number for that model (1 for its first request).
type modelGateway struct {
	mu    sync.Mutex
	hits  map[string]int
	keys  map[string][]string // Idempotency-Key per model, per request
	order []string            // models in the order requested
}

type modelScript func(w http.ResponseWriter, r *http.Request, attempt int, stream bool)

func newModelGateway(t *testing.T, scripts map[string]modelScript) (*modelGateway, *httptest.Server) {
	t.Helper()
	g := &modelGateway{hits: map[string]int{}, keys: map[string][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		g.mu.Lock()
		g.hits[body.Model]++
		n := g.hits[body.Model]
		g.keys[body.Model] = append(g.keys[body.Model], r.Header.Get("Idempotency-Key"))
		g.order = append(g.order, body.Model)
		g.mu.Unlock()
		script, ok := scripts[body.Model]
		if !ok {
			script = serve
		}
		script(w, r, n, body.Stream)
	}))
	t.Cleanup(srv.Close)
	return g, srv
}

func (g *modelGateway) hitsOf(model string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hits[model]
}

func (g *modelGateway) keysOf(model string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.keys[model]...)
}

func (g *modelGateway) requested() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.order...)
}

func fallbackClient(t *testing.T, url string, opts ...infergate.Option) *infergate.Client {
	t.Helper()
	all := append([]infergate.Option{infergate.WithAPIKey("sk-test-key"), infergate.WithBaseURL(url),
		infergate.WithRetryBackoff(0, 0), infergate.WithMaxRetries(0)}, opts...)
	c, err := infergate.NewClient(all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chunkJSON(model, content, finish string) string {
	delta := map[string]any{"role": "assistant"}
	if content != "" {
		delta = map[string]any{"content": content}
	}
	var fr any
	if finish != "" {
		fr = finish
	}
	return "data: " + JSONText(map[string]any{"id": "c-" + model, "object": "chat.completion.chunk", "model": model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fr}}}) + "\n\n"
}

func JSONText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func eventStream(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		_, _ = io.WriteString(w, e)
	}
}

// serve answers "answer from <model>", streamed or not.
func serve(w http.ResponseWriter, r *http.Request, _ int, stream bool) {
	model := "served"
	if r.Header.Get("X-Model-Served") != "" {
		model = r.Header.Get("X-Model-Served")
	}
	if stream {
		eventStream(w, chunkJSON(model, "", ""), chunkJSON(model, "answer", ""), chunkJSON(model, "", "stop"), "data: [DONE]\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, JSONText(map[string]any{"id": "c", "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": "answer"}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}))
}

func failStatus(code int) modelScript {
	return func(w http.ResponseWriter, _ *http.Request, _ int, _ bool) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"failed with %d","type":"provider_error"}}`, code)
	}
}

func inBand(events ...string) modelScript {
	return func(w http.ResponseWriter, _ *http.Request, _ int, _ bool) { eventStream(w, events...) }
}

const inBandFailure = `data: {"error":{"message":"provider failed","type":"retry_failed","status":502}}` + "\n\n"

func ask() infergate.ChatRequest {
	return infergate.ChatRequest{Model: "a", Messages: []infergate.Message{infergate.UserMessage("hi")}}
}

// callChat runs the request through Create or Stream (read to its end), returning the text and error.
func callChat(ctx context.Context, c *infergate.Client, stream bool, opts ...infergate.Option) (string, error) {
	if !stream {
		out, err := c.Chat.Create(ctx, ask(), opts...)
		return out.Text(), err
	}
	st, err := c.Chat.Stream(ctx, ask(), opts...)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var b strings.Builder
	for st.Next() {
		b.WriteString(st.Current().Text())
	}
	return b.String(), st.Err()
}

// Each status that says the model cannot serve falls back to the next model; each that says the
// request or credential is wrong does not; on Create and on Stream alike.
func TestFallbackByStatus(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		for _, code := range []int{404, 429, 500, 502, 503, 504, 400, 401, 403, 413, 422} {
			falls := code != 400 && code != 401 && code != 403 && code != 413 && code != 422
			t.Run(fmt.Sprintf("stream=%v/%d", stream, code), func(t *testing.T) {
				t.Parallel()
				g, srv := newModelGateway(t, map[string]modelScript{"a": failStatus(code)})
				c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b"))
				var info infergate.ResponseInfo
				text, err := callChat(context.Background(), c, stream, infergate.WithResponseInfo(&info))
				var apiErr *infergate.APIError
				if !falls {
					var fbErr *infergate.FallbackError
					if !errors.As(err, &apiErr) || apiErr.StatusCode != code || errors.As(err, &fbErr) {
						t.Fatalf("err = %v; want the model's own *APIError %d", err, code)
					}
					if g.hitsOf("b") != 0 {
						t.Errorf("fell back on %d", code)
					}
					return
				}
				if err != nil || text != "answer" {
					t.Fatalf("text %q, err %v; want b's answer", text, err)
				}
				if len(info.Fallbacks) != 1 || info.Fallbacks[0].Model != "a" || !errors.As(info.Fallbacks[0].Err, &apiErr) || apiErr.StatusCode != code {
					t.Errorf("Fallbacks = %+v; want a's %d", info.Fallbacks, code)
				}
				if info.StatusCode != http.StatusOK {
					t.Errorf("ResponseInfo.StatusCode = %d; want the serving model's 200", info.StatusCode)
				}
				if g.hitsOf("a") != 1 || g.hitsOf("b") != 1 {
					t.Errorf("hits a=%d b=%d; want 1 and 1", g.hitsOf("a"), g.hitsOf("b"))
				}
			})
		}
	}
}

// A stream that fails before its first delta falls back; one that failed after a delta, or with an
// in-band error saying the request is wrong, does not.
func TestFallbackStreamShapes(t *testing.T) {
	t.Parallel()
	role := chunkJSON("a", "", "")
	tests := []struct {
		name   string
		script modelScript
		falls  bool
		want   error // what Err matches when it does not fall back
	}{
		{"in-band error first", inBand(inBandFailure), true, nil},
		{"in-band error after the role chunk", inBand(role, inBandFailure), true, nil},
		{"end without a finish after the role chunk", inBand(role), true, nil},
		{"nothing at all", inBand(), true, nil},
		{"in-band 400 first", inBand(`data: {"error":{"message":"bad","type":"client_error","status":400}}` + "\n\n"), false, &infergate.StreamError{}},
		{"in-band error after a delta", inBand(role, chunkJSON("a", "half", ""), inBandFailure), false, &infergate.StreamError{}},
		{"end without a finish after a delta", inBand(role, chunkJSON("a", "half", "")), false, infergate.ErrIncompleteStream},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, srv := newModelGateway(t, map[string]modelScript{"a": tc.script})
			c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b"))
			st, err := c.Chat.Stream(context.Background(), ask())
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			defer st.Close()
			var text strings.Builder
			for st.Next() {
				text.WriteString(st.Current().Text())
			}
			if tc.falls {
				if st.Err() != nil || text.String() != "answer" || g.hitsOf("b") != 1 {
					t.Fatalf("text %q, err %v, b hit %d times; want b's answer", text.String(), st.Err(), g.hitsOf("b"))
				}
				if tc.name != "end without a finish after the role chunk" && tc.name != "nothing at all" && len(st.Skipped()) != 1 {
					t.Errorf("Skipped = %v; want a's in-band error kept", st.Skipped())
				}
				return
			}
			if g.hitsOf("b") != 0 {
				t.Fatalf("fell back")
			}
			var se *infergate.StreamError
			switch want := tc.want.(type) {
			case *infergate.StreamError:
				if !errors.As(st.Err(), &se) {
					t.Errorf("Err = %v; want a *StreamError", st.Err())
				}
			default:
				if !errors.Is(st.Err(), want) {
					t.Errorf("Err = %v; want %v", st.Err(), want)
				}
			}
			if strings.Contains(tc.name, "after a delta") && text.String() != "half" {
				t.Errorf("text = %q; want what arrived", text.String())
			}
		})
	}
}

// A stream that fails before its first delta is sent again, with the same Idempotency-Key, within
// WithMaxRetries' budget, which the HTTP retries share; spent, the model has failed.
func TestStreamResentBeforeFirstDelta(t *testing.T) {
	t.Parallel()
	t.Run("resent and served", func(t *testing.T) {
		t.Parallel()
		g, srv := newModelGateway(t, map[string]modelScript{"a": func(w http.ResponseWriter, r *http.Request, n int, s bool) {
			if n == 1 {
				eventStream(w, inBandFailure)
				return
			}
			serve(w, r, n, s)
		}})
		c := fallbackClient(t, srv.URL, infergate.WithMaxRetries(1))
		st, err := c.Chat.Stream(context.Background(), ask())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var text strings.Builder
		for st.Next() {
			text.WriteString(st.Current().Text())
		}
		if st.Err() != nil || text.String() != "answer" || g.hitsOf("a") != 2 {
			t.Fatalf("text %q err %v hits %d; want the answer on the second request", text.String(), st.Err(), g.hitsOf("a"))
		}
		if len(st.Skipped()) != 1 || st.SkippedCount() != 1 || st.Skipped()[0].Type != "retry_failed" {
			t.Errorf("Skipped = %v; want the first request's in-band error", st.Skipped())
		}
		if keys := g.keysOf("a"); keys[0] == "" || keys[0] != keys[1] {
			t.Errorf("keys = %q; want the same key on the resend of the same request", keys)
		}
	})
	t.Run("budget shared with HTTP retries", func(t *testing.T) {
		t.Parallel()
		g, srv := newModelGateway(t, map[string]modelScript{"a": func(w http.ResponseWriter, r *http.Request, n int, s bool) {
			if n == 1 {
				failStatus(503)(w, r, n, s)
				return
			}
			eventStream(w, inBandFailure)
		}})
		c := fallbackClient(t, srv.URL, infergate.WithMaxRetries(2))
		st, err := c.Chat.Stream(context.Background(), ask())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for st.Next() {
		}
		var se *infergate.StreamError
		if !errors.As(st.Err(), &se) || g.hitsOf("a") != 3 {
			t.Fatalf("err %v after %d requests; want the in-band error after 3 (one HTTP retry, one resend)", st.Err(), g.hitsOf("a"))
		}
		if st.SkippedCount() != 2 {
			t.Errorf("SkippedCount = %d; want both in-band errors", st.SkippedCount())
		}
	})
	t.Run("no budget", func(t *testing.T) {
		t.Parallel()
		g, srv := newModelGateway(t, map[string]modelScript{"a": inBand(inBandFailure)})
		c := fallbackClient(t, srv.URL)
		st, err := c.Chat.Stream(context.Background(), ask())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for st.Next() {
		}
		if st.Err() == nil || g.hitsOf("a") != 1 {
			t.Fatalf("err %v after %d requests; want the in-band error, unsent again", st.Err(), g.hitsOf("a"))
		}
	})
}

// Every model failing is a *FallbackError naming each, whose Unwrap reaches each model's error.
func TestFallbackErrorUnwraps(t *testing.T) {
	t.Parallel()
	_, srv := newModelGateway(t, map[string]modelScript{
		"a": failStatus(502),
		"b": inBand(inBandFailure),
		"c": func(w http.ResponseWriter, _ *http.Request, _ int, _ bool) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		},
	})
	c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b", "c"))
	var info infergate.ResponseInfo
	_, err := c.Chat.Stream(context.Background(), ask(), infergate.WithResponseInfo(&info))
	var fb *infergate.FallbackError
	if !errors.As(err, &fb) || len(fb.Attempts) != 3 {
		t.Fatalf("err = %v; want a *FallbackError of 3 models", err)
	}
	var apiErr *infergate.APIError
	var se *infergate.StreamError
	var te *infergate.TransportError
	if !errors.As(err, &apiErr) || !errors.As(err, &se) || !errors.As(err, &te) {
		t.Errorf("errors.As reached APIError %v, StreamError %v, TransportError %v; want all", apiErr != nil, se != nil, te != nil)
	}
	for _, m := range []string{`"a"`, `"b"`, `"c"`, "502", "retry_failed"} {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("Error() = %q; want it to name %s", err, m)
		}
	}
	if len(info.Fallbacks) != 3 {
		t.Errorf("Fallbacks = %v; want the three models", info.Fallbacks)
	}
}

// A later model failing in a way that does not fall back returns its own error, the earlier models
// in Fallbacks; a call's list replaces the client's; an empty model is an entry like any other.
func TestFallbackListRules(t *testing.T) {
	t.Parallel()
	g, srv := newModelGateway(t, map[string]modelScript{"a": failStatus(503), "": failStatus(502), "b": failStatus(400)})
	c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("client-list"))
	var info infergate.ResponseInfo
	_, err := c.Chat.Create(context.Background(), ask(), infergate.WithFallbackModels("", "b", "never"), infergate.WithResponseInfo(&info))
	var apiErr *infergate.APIError
	var fb *infergate.FallbackError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || errors.As(err, &fb) {
		t.Fatalf("err = %v; want b's own 400", err)
	}
	if got := g.requested(); strings.Join(got, ",") != "a,,b" {
		t.Errorf("models requested = %q; want a, the gateway's choice, b", got)
	}
	if len(info.Fallbacks) != 2 || info.Fallbacks[0].Model != "a" || info.Fallbacks[1].Model != "" {
		t.Errorf("Fallbacks = %+v; want a and the gateway's choice", info.Fallbacks)
	}
}

// Nothing falls back once the caller's context has ended.
func TestFallbackNotAfterTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	g, srv := newModelGateway(t, map[string]modelScript{"a": func(w http.ResponseWriter, _ *http.Request, _ int, _ bool) {
		cancel()
		failStatus(503)(w, nil, 0, false)
	}})
	c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b"))
	for _, stream := range []bool{false, true} {
		// The 503 or the cancellation, whichever the client notices first; never b's answer.
		if _, err := callChat(ctx, c, stream); err == nil {
			t.Errorf("stream=%v: no error; want a's failure, not a fallback", stream)
		}
	}
	if g.hitsOf("b") != 0 {
		t.Errorf("b hit %d times after the context ended", g.hitsOf("b"))
	}
}

// A caller's own Idempotency-Key goes to every model as given; otherwise each model's request has
// its own key.
func TestFallbackIdempotencyKeys(t *testing.T) {
	t.Parallel()
	g, srv := newModelGateway(t, map[string]modelScript{"a": failStatus(502), "b": failStatus(503)})
	c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b", "c"))
	if _, err := c.Chat.Create(context.Background(), ask()); err != nil {
		t.Fatal(err)
	}
	ka, kb, kc := g.keysOf("a")[0], g.keysOf("b")[0], g.keysOf("c")[0]
	if ka == "" || ka == kb || kb == kc || ka == kc {
		t.Errorf("keys %q %q %q; want one of its own per model", ka, kb, kc)
	}
	if _, err := c.Chat.Stream(context.Background(), ask(), infergate.WithHeader("Idempotency-Key", "mine")); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"a", "b", "c"} {
		if k := g.keysOf(m)[1]; k != "mine" {
			t.Errorf("model %s got key %q; want the caller's", m, k)
		}
	}
}

// A fallback and a resend keep the one place their call holds: with one place, a call that falls
// back, or resends a stream, still ends (a second place would never come).
func TestFallbackKeepsItsPlace(t *testing.T) {
	t.Parallel()
	_, srv := newModelGateway(t, map[string]modelScript{"a": failStatus(502), "b": func(w http.ResponseWriter, r *http.Request, n int, s bool) {
		if n%2 == 1 && s {
			eventStream(w, inBandFailure)
			return
		}
		serve(w, r, n, s)
	}})
	c := fallbackClient(t, srv.URL, infergate.WithMaxConcurrency(1), infergate.WithMaxRetries(1), infergate.WithFallbackModels("b"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a guard only
	defer cancel()
	for _, stream := range []bool{false, true, true} {
		if text, err := callChat(ctx, c, stream); err != nil || text != "answer" {
			t.Fatalf("stream=%v: %q, %v", stream, text, err)
		}
	}
}

// WithFallbackModels() given to one call turns the client's list off for it.
func TestFallbackListTurnedOffForACall(t *testing.T) {
	t.Parallel()
	g, srv := newModelGateway(t, map[string]modelScript{"a": failStatus(503)})
	c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b"))
	_, err := c.Chat.Create(context.Background(), ask(), infergate.WithFallbackModels())
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || g.hitsOf("b") != 0 {
		t.Errorf("err %v, b hit %d times; want a's own 503", err, g.hitsOf("b"))
	}
}

// A transport failure falls back, on Create and on Stream; WithAtMostOnce sends no stream again,
// and still falls back.
func TestFallbackOnTransportFailureAndAtMostOnce(t *testing.T) {
	t.Parallel()
	hangUp := func(w http.ResponseWriter, _ *http.Request, _ int, _ bool) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}
	for _, stream := range []bool{false, true} {
		g, srv := newModelGateway(t, map[string]modelScript{"a": hangUp})
		c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b"))
		var info infergate.ResponseInfo
		var te *infergate.TransportError
		if text, err := callChat(context.Background(), c, stream, infergate.WithResponseInfo(&info)); err != nil || text != "answer" ||
			len(info.Fallbacks) != 1 || !errors.As(info.Fallbacks[0].Err, &te) || g.hitsOf("b") != 1 {
			t.Errorf("stream=%v: %q, %v, Fallbacks %v; want b's answer after a's *TransportError", stream, text, err, info.Fallbacks)
		}
	}
	g, srv := newModelGateway(t, map[string]modelScript{"a": inBand(inBandFailure)})
	c := fallbackClient(t, srv.URL, infergate.WithMaxRetries(2), infergate.WithAtMostOnce(true), infergate.WithFallbackModels("b"))
	if text, err := callChat(context.Background(), c, true); err != nil || text != "answer" || g.hitsOf("a") != 1 {
		t.Errorf("at most once: %q, %v, a asked %d times; want b's answer after one request to a", text, err, g.hitsOf("a"))
	}
}
