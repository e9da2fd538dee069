package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// windowGateway is a fake gateway whose catalogue gives "small" a window of 100 tokens and
// "large" one of 100,000; "unsized" has none.
func windowGateway(t *testing.T, opts ...gatewaytest.ServerOption) *gatewaytest.Server {
	t.Helper()
	models := gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "small", ContextLength: 100},
		gatewaytest.CatalogModel{ID: "large", ContextLength: 100_000},
		gatewaytest.CatalogModel{ID: "unsized"},
	)
	return gatewaytest.New(t, append([]gatewaytest.ServerOption{models}, opts...)...)
}

// chatRequests counts the chat requests the fake gateway saw.
func chatRequests(gw *gatewaytest.Server) int {
	n := 0
	for _, r := range gw.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			n++
		}
	}
	return n
}

// chars returns a user message of n characters, which the admission estimate counts as n/4 tokens.
func chars(n int) infergate.Message { return infergate.UserMessage(strings.Repeat("a", n)) }

func TestContextGuardRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		req  infergate.ChatRequest
		want infergate.ContextWindowError
	}{
		{"input alone", infergate.ChatRequest{Model: "small", Messages: []infergate.Message{chars(404)}},
			infergate.ContextWindowError{Model: "small", Limit: 100, Input: 101}},
		{"input and max_tokens", infergate.ChatRequest{Model: "small", Messages: []infergate.Message{chars(200)}, MaxTokens: infergate.Ptr(51)},
			infergate.ContextWindowError{Model: "small", Limit: 100, Input: 50, MaxTokens: 51}},
		{"max_completion_tokens", infergate.ChatRequest{Model: "SMALL", Messages: []infergate.Message{chars(200)},
			Extra: map[string]any{"max_completion_tokens": 60}},
			infergate.ContextWindowError{Model: "SMALL", Limit: 100, Input: 50, MaxTokens: 60}},
		{"the larger bound", infergate.ChatRequest{Model: "small", Messages: []infergate.Message{chars(200)}, MaxTokens: infergate.Ptr(10),
			Extra: map[string]any{"max_completion_tokens": 70.0}},
			infergate.ContextWindowError{Model: "small", Limit: 100, Input: 50, MaxTokens: 70}},
		{"parts", infergate.ChatRequest{Model: "small", Messages: []infergate.Message{{Role: infergate.RoleUser,
			Parts: []infergate.ContentPart{infergate.TextPart(strings.Repeat("b", 400))}}}},
			infergate.ContextWindowError{Model: "small", Limit: 100, Input: 107}}, // repr of the list: 400 + 30
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := windowGateway(t)
			c := gw.Client(infergate.WithContextGuard())
			calls := map[string]func() error{
				"Create": func() error { _, err := c.Chat.Create(ctx, tc.req); return err },
				"Stream": func() error { _, err := c.Chat.Stream(ctx, tc.req); return err },
				"GenerateObject": func() error {
					_, err := infergate.GenerateObject[Dish](ctx, c.Chat, tc.req, infergate.ObjectSpec{})
					return err
				},
				"RunTools": func() error {
					_, err := c.Chat.RunTools(ctx, tc.req, infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}}).Wait()
					return err
				},
			}
			for name, call := range calls {
				err := call()
				var cwe *infergate.ContextWindowError
				if !errors.As(err, &cwe) || !errors.Is(err, infergate.ErrContextWindow) {
					t.Fatalf("%s: err %v; want a *ContextWindowError", name, err)
				}
				got := *cwe
				got.Messages = nil
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("%s: %+v; want %+v", name, got, tc.want)
				}
				if !strings.Contains(err.Error(), "nothing was sent") {
					t.Errorf("%s: %q", name, err)
				}
			}
			if n := chatRequests(gw); n != 0 {
				t.Errorf("the gateway saw %d chat requests; want none", n)
			}
		})
	}
}

// What fits is sent, and so is what the guard cannot measure; without the guard, nothing is
// checked.
func TestContextGuardSendsWhatFitsOrIsUnknown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gw := windowGateway(t, gatewaytest.WithAnyModel())
	guarded := gw.Client(infergate.WithContextGuard())
	for _, req := range []infergate.ChatRequest{
		{Model: "small", Messages: []infergate.Message{chars(200)}, MaxTokens: infergate.Ptr(50)}, // exactly 100
		{Model: "large", Messages: []infergate.Message{chars(4000)}},
		{Model: "unsized", Messages: []infergate.Message{chars(4000)}},
		{Model: "unlisted", Messages: []infergate.Message{chars(4000)}},
		{Messages: []infergate.Message{chars(4000)}}, // the gateway's choice
	} {
		if _, err := guarded.Chat.Create(ctx, req); err != nil {
			t.Errorf("%s: %v", req.Model, err)
		}
	}
	if _, err := gw.Client().Chat.Create(ctx, infergate.ChatRequest{Model: "small", Messages: []infergate.Message{chars(4000)}}); err != nil {
		t.Errorf("unguarded: %v", err)
	}
	if n := chatRequests(gw); n != 6 {
		t.Errorf("the gateway saw %d chat requests; want 6", n)
	}
}

// WithTokenCounter's counter is the one the guard counts with.
func TestContextGuardCountsWithTokenCounter(t *testing.T) {
	t.Parallel()
	gw := windowGateway(t)
	var seen int
	count := func(msgs []infergate.Message) int { seen = len(msgs); return 1000 }
	_, err := gw.Client(infergate.WithContextGuard(), infergate.WithTokenCounter(count)).Chat.Create(context.Background(),
		infergate.ChatRequest{Model: "small", Messages: []infergate.Message{infergate.SystemMessage("s"), chars(4)}})
	var cwe *infergate.ContextWindowError
	if !errors.As(err, &cwe) || cwe.Input != 1000 || seen != 2 {
		t.Fatalf("err %v, counter saw %d messages", err, seen)
	}
	if n := chatRequests(gw); n != 0 {
		t.Errorf("the gateway saw %d chat requests", n)
	}
}

func TestContextGuardFallsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	req := infergate.ChatRequest{Model: "small", Messages: []infergate.Message{chars(800)}}
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			t.Parallel()
			gw := windowGateway(t)
			c := gw.Client(infergate.WithContextGuard(), infergate.WithFallbackModels("large"))
			var info infergate.ResponseInfo
			var err error
			if stream {
				var st *infergate.ChatStream
				if st, err = c.Chat.Stream(ctx, req, infergate.WithResponseInfo(&info)); err == nil {
					for st.Next() {
					}
					err = st.Err()
					st.Close()
				}
			} else {
				_, err = c.Chat.Create(ctx, req, infergate.WithResponseInfo(&info))
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := modelsRequested(gw); got != "large" {
				t.Errorf("models requested %q; want large only", got)
			}
			var cwe *infergate.ContextWindowError
			if len(info.Fallbacks) != 1 || info.Fallbacks[0].Model != "small" || !errors.As(info.Fallbacks[0].Err, &cwe) || cwe.Limit != 100 {
				t.Errorf("fallbacks %+v", info.Fallbacks)
			}
			if info.StatusCode != http.StatusOK {
				t.Errorf("ResponseInfo status %d; want the chat answer's", info.StatusCode)
			}
		})
	}
	t.Run("none fits", func(t *testing.T) {
		t.Parallel()
		gw := windowGateway(t)
		_, err := gw.Client(infergate.WithContextGuard()).Chat.Create(ctx, infergate.ChatRequest{Model: "small",
			Messages: []infergate.Message{chars(800_000)}}, infergate.WithFallbackModels("large"))
		var fe *infergate.FallbackError
		if !errors.As(err, &fe) || len(fe.Attempts) != 2 || !errors.Is(err, infergate.ErrContextWindow) {
			t.Fatalf("err %v; want a *FallbackError of two *ContextWindowError", err)
		}
		if n := chatRequests(gw); n != 0 {
			t.Errorf("the gateway saw %d chat requests", n)
		}
	})
}

// longTool answers with n characters, which fill the next turn's window.
func longTool(t *testing.T, n int) *infergate.FuncTool {
	return mustTool(t, "weather", func(context.Context, cityArgs) (string, error) { return strings.Repeat("x", n), nil })
}

// A loop's first turn fits the window of 100; its tool's result of 300 characters makes the second
// turn 125 tokens.
func compactLoop(t *testing.T) (*gatewaytest.Server, infergate.ChatRequest, infergate.ToolLoop) {
	gw := windowGateway(t, gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Paris"}`}}},
		gatewaytest.Reply{Respond: func(conv []gatewaytest.Turn) gatewaytest.Reply {
			return gatewaytest.Reply{Content: fmt.Sprintf("%d turns", len(conv))}
		}}))
	return gw, infergate.ChatRequest{Model: "small", Messages: []infergate.Message{chars(200)}},
		infergate.ToolLoop{Tools: []*infergate.FuncTool{longTool(t, 300)}}
}

func TestToolLoopCompacts(t *testing.T) {
	t.Parallel()
	gw, req, loop := compactLoop(t)
	var limits []int
	loop.Compact = func(_ context.Context, msgs []infergate.Message, limit int) ([]infergate.Message, error) {
		limits = append(limits, limit)
		last := &msgs[len(msgs)-1]
		last.Content = last.Content[:40] // 125 tokens become 60
		return msgs, nil
	}
	res, err := gw.Client(infergate.WithContextGuard()).Chat.RunTools(context.Background(), req, loop).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(limits) != "[100]" {
		t.Errorf("Compact's limits %v; want [100], once", limits)
	}
	if res.Answer.Text() != "3 turns" || len(res.Messages) != 4 || len(res.Messages[2].Content) != 40 {
		t.Errorf("answer %q, transcript %+v", res.Answer.Text(), res.Messages)
	}
	last, _ := gw.LastRequest()
	msgs, _ := last.JSON["messages"].([]any)
	if tool, _ := msgs[len(msgs)-1].(map[string]any); len(msgs) != 3 || tool["content"] != strings.Repeat("x", 40) {
		t.Errorf("second turn sent %v", msgs)
	}
}

// A Compact called again and again shortens the transcript a little each time, until it fits.
func TestToolLoopCompactsUntilItFits(t *testing.T) {
	t.Parallel()
	gw, req, loop := compactLoop(t)
	calls := 0
	loop.Compact = func(_ context.Context, msgs []infergate.Message, _ int) ([]infergate.Message, error) {
		calls++
		last := &msgs[len(msgs)-1]
		last.Content = last.Content[:len(last.Content)-40]
		return msgs, nil
	}
	if _, err := gw.Client(infergate.WithContextGuard()).Chat.RunTools(context.Background(), req, loop).Wait(); err != nil {
		t.Fatal(err)
	}
	if calls != 3 { // 125 tokens become 115, 105, then 95, which fits
		t.Errorf("Compact called %d times; want 3", calls)
	}
	if n := chatRequests(gw); n != 2 {
		t.Errorf("the gateway saw %d chat requests; want 2", n)
	}
}

func TestToolLoopEndsOnTheWindow(t *testing.T) {
	t.Parallel()
	failing := errors.New("summariser down")
	cases := []struct {
		name    string
		compact func(context.Context, []infergate.Message, int) ([]infergate.Message, error)
		check   func(t *testing.T, err error)
	}{
		{"no Compact", nil, func(t *testing.T, err error) {
			var ce *infergate.CompactError
			if errors.As(err, &ce) {
				t.Errorf("a *CompactError without Compact: %v", err)
			}
		}},
		{"Compact fails", func(context.Context, []infergate.Message, int) ([]infergate.Message, error) { return nil, failing },
			func(t *testing.T, err error) {
				var ce *infergate.CompactError
				if !errors.As(err, &ce) || !errors.Is(err, failing) || !strings.Contains(err.Error(), "summariser down") {
					t.Errorf("err %v; want a *CompactError wrapping Compact's", err)
				}
			}},
		{"Compact lengthens", func(_ context.Context, msgs []infergate.Message, _ int) ([]infergate.Message, error) {
			return append(msgs, infergate.UserMessage("and one more thing")), nil
		}, func(t *testing.T, err error) {
			var ce *infergate.CompactError
			if !errors.As(err, &ce) || ce.Err != nil || ce.Input <= ce.Window.Input || !strings.Contains(err.Error(), "no shorter") {
				t.Errorf("err %v; want a *CompactError of a longer transcript", err)
			}
		}},
		{"Compact returns the same", func(_ context.Context, msgs []infergate.Message, _ int) ([]infergate.Message, error) {
			return msgs, nil
		}, func(t *testing.T, err error) {
			var ce *infergate.CompactError
			if !errors.As(err, &ce) || ce.Input != ce.Window.Input {
				t.Errorf("err %v; want a *CompactError of a transcript no shorter", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw, req, loop := compactLoop(t)
			loop.Compact = tc.compact
			run := gw.Client(infergate.WithContextGuard()).Chat.RunTools(context.Background(), req, loop)
			res, err := run.Wait()
			var cwe *infergate.ContextWindowError
			if !errors.As(err, &cwe) || !errors.Is(err, infergate.ErrContextWindow) {
				t.Fatalf("err %v; want a *ContextWindowError", err)
			}
			if cwe.Limit != 100 || cwe.Input != 125 || len(cwe.Messages) != 3 || cwe.Messages[2].Role != infergate.RoleTool {
				t.Errorf("%+v; want the 3-message transcript of 125 tokens", cwe)
			}
			if len(res.Messages) != 3 {
				t.Errorf("result transcript %d messages; want 3", len(res.Messages))
			}
			tc.check(t, err)
			if n := chatRequests(gw); n != 1 {
				t.Errorf("the gateway saw %d chat requests; want the first turn's only", n)
			}
		})
	}
}

// Servers' own answers that the context was exceeded match ErrContextWindow, guard or not; other
// answers do not.
func TestServerContextOverflowMatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"gateway's wrapping of vLLM", 400, `{"error":{"message":"HTTP 400: {\"providerModelError\":{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}}","type":"client_error"}}`, true},
		{"OpenAI", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, true},
		{"OpenAI code alone", 400, `{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}`, true},
		{"vLLM", 400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens. Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, true},
		{"llama.cpp", 400, `{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}`, true},
		{"llama.cpp type alone", 500, `{"error":{"code":500,"message":"failed","type":"exceed_context_size_error"}}`, true},
		{"SGLang", 400, `{"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","code":400}`, true},
		{"Anthropic", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`, true},
		{"detail", 400, `{"detail":"Input is too long for requested model."}`, true},
		{"gateway's TPM 429", 429, `{"error":{"message":"Rate limit exceeded: 90000/100000 tokens per minute. Please retry after 5 seconds.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`, false},
		{"other 400", 400, `{"error":{"message":"HTTP 400: {\"providerModelError\":{\"error\":{\"message\":\"invalid request body\"}}}","type":"client_error"}}`, false},
		{"context canceled", 500, `{"error":"request cancelled while waiting in queue: context canceled"}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.New(t, gatewaytest.WithAnyModel())
			gw.FailNext(1, gatewaytest.ErrorReply{Status: tc.status, Body: tc.body})
			_, err := gw.Client(infergate.WithMaxRetries(0)).Chat.Create(context.Background(), ask())
			var apiErr *infergate.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err %v; want an *APIError", err)
			}
			if got := errors.Is(err, infergate.ErrContextWindow); got != tc.want {
				t.Errorf("errors.Is(%v, ErrContextWindow) = %v; want %v", err, got, tc.want)
			}
		})
	}
}

// An error a stream carries in band matches too: a Go server's "context window is full".
func TestStreamContextOverflowMatches(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		eventStream(w, `data: {"error":{"code":"server_error","message":"start-slot: imc decode: the context window is full.","type":"server_error"}}`+"\n\n")
	}))
	t.Cleanup(srv.Close)
	st, err := testClient(t, srv.URL, infergate.WithMaxRetries(0)).Chat.Stream(context.Background(), ask())
	if err == nil {
		for st.Next() {
		}
		err = st.Err()
		st.Close()
	}
	var se *infergate.StreamError
	if !errors.As(err, &se) || !errors.Is(err, infergate.ErrContextWindow) {
		t.Fatalf("err %v; want a *StreamError matching ErrContextWindow", err)
	}
}

// A window the models route does not send comes from WithModelFacts, else the SDK's table of the
// gateway's published models, as Models.Get gives it.
func TestContextGuardReadsModelFacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gw := gatewaytest.New(t, gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "venice-uncensored"}, gatewaytest.CatalogModel{ID: "own"}))
	c := gw.Client(infergate.WithContextGuard(), infergate.WithModelFacts(infergate.Model{ID: "own", ContextLength: 100}))
	for model, limit := range map[string]int{"venice-uncensored": 32_000, "own": 100} {
		_, err := c.Chat.Create(ctx, infergate.ChatRequest{Model: model, Messages: []infergate.Message{chars(200_000)}})
		var cwe *infergate.ContextWindowError
		if !errors.As(err, &cwe) || cwe.Limit != limit {
			t.Errorf("%s: err %v; want a *ContextWindowError of limit %d", model, err, limit)
		}
	}
	if n := chatRequests(gw); n != 0 {
		t.Errorf("the gateway saw %d chat requests", n)
	}
}
