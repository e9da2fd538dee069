package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/infergate/infergate-go"
)

// captured is what the mock saw of one request.
type captured struct {
	url, auth, tenant string
	body              map[string]any
}

func captureCalls(mock *httpmock.MockTransport, method, url string, status int, body string, header http.Header) *[]captured {
	var mu sync.Mutex
	var seen []captured
	mock.RegisterResponder(method, url, func(r *http.Request) (*http.Response, error) {
		c := captured{url: r.URL.String(), auth: r.Header.Get("Authorization"), tenant: r.Header.Get("X-Tenant")}
		if r.Body != nil {
			raw, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(raw, &c.body)
		}
		mu.Lock()
		seen = append(seen, c)
		mu.Unlock()
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			resp.Header[k] = v
		}
		return resp, nil
	})
	return &seen
}

func TestPerCallOptionsOverrideTheClientsForThatCallOnly(t *testing.T) {
	client, mock := mockClient(t)
	seen := captureCalls(mock, http.MethodPost, chatURL, 200, okCompletion, nil)
	other := captureCalls(mock, http.MethodPost, "https://tenant-b.test/api/v1/chat/completions", 200, okCompletion, nil)
	ctx := context.Background()
	if _, err := client.Chat.Create(ctx, hello(), infergate.WithAPIKey("sk-tenant-b"), infergate.WithTimeout(30*time.Second),
		infergate.WithHeader("X-Tenant", "b")); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(ctx, hello(), infergate.WithBaseURL("https://tenant-b.test")); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(ctx, hello()); err != nil {
		t.Fatal(err)
	}
	s := *seen
	if len(s) != 2 || s[0].auth != "Bearer sk-tenant-b" || s[0].tenant != "b" || s[1].auth != "Bearer sk-secret-key" || s[1].tenant != "" {
		t.Errorf("requests = %+v", s)
	}
	if len(*other) != 1 || (*other)[0].auth != "Bearer sk-secret-key" {
		t.Errorf("per-call base URL: %+v", *other)
	}
	_, err := client.Chat.Create(ctx, hello(), infergate.WithRetryBackoff(time.Second, time.Millisecond))
	var ve *infergate.ValidationError
	if !errors.As(err, &ve) || len(*seen) != 2 {
		t.Errorf("an invalid per-call option: %v", err)
	}
}

func TestMiddlewareWrapsEveryAttemptInOrder(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	mw := func(name string) infergate.Middleware {
		return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			mu.Lock()
			trace = append(trace, name+">")
			mu.Unlock()
			req.Header.Set("X-Traced-By-"+name, "yes")
			resp, err := next(req)
			mu.Lock()
			trace = append(trace, "<"+name)
			mu.Unlock()
			return resp, err
		}
	}
	client, mock := mockClient(t, infergate.WithMiddleware(mw("a")))
	attempts := 0
	mock.RegisterResponder(http.MethodPost, chatURL, func(r *http.Request) (*http.Response, error) {
		attempts++
		if r.Header.Get("X-Traced-By-a") != "yes" || r.Header.Get("X-Traced-By-b") != "yes" {
			t.Errorf("attempt %d was not traced by both", attempts)
		}
		if attempts == 1 {
			return httpmock.NewStringResponse(503, `{"error":"busy"}`), nil
		}
		return httpmock.NewStringResponse(200, okCompletion), nil
	})
	if _, err := client.Chat.Create(context.Background(), hello(), infergate.WithMiddleware(mw("b"))); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(trace, " "); got != "a> b> <b <a a> b> <b <a" {
		t.Errorf("trace %q, want both middlewares around each of the 2 attempts, a outermost", got)
	}
}

func TestResponseInfo(t *testing.T) {
	client, mock := mockClient(t)
	header := http.Header{
		"X-Request-Id":                   {"req-42"},
		"X-Ratelimit-Limit-Requests":     {"100"},
		"X-Ratelimit-Remaining-Requests": {"0"},
		"X-Ratelimit-Limit-Tokens":       {"5000"},
		"X-Ratelimit-Reset-Requests":     {"2026-11-22T20:00:00Z"},
		"X-Ratelimit-Reset-Tokens":       {"6m0s"},
	}
	captureCalls(mock, http.MethodPost, chatURL, 200, okCompletion, header)
	var info infergate.ResponseInfo
	before := time.Now()
	if _, err := client.Chat.Create(context.Background(), hello(), infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	rl := info.RateLimits
	if rl == nil {
		t.Fatalf("no rate limits in %+v", info)
	}
	switch {
	case info.StatusCode != 200 || info.RequestID != "req-42" || info.Header.Get("X-Request-Id") != "req-42":
		t.Errorf("info = %+v", info)
	case rl.LimitRequests != 100 || rl.RemainingRequests != 0 || rl.LimitTokens != 5000 || rl.RemainingTokens != -1:
		t.Errorf("counts = %+v", rl)
	case !rl.ResetRequests.Equal(time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC)):
		t.Errorf("ISO-8601 reset = %v", rl.ResetRequests)
	case rl.ResetTokens.Before(before.Add(6*time.Minute)) || rl.ResetTokens.After(time.Now().Add(6*time.Minute)):
		t.Errorf("duration reset = %v", rl.ResetTokens)
	}
	if _, err := infergate.NewClient(infergate.WithResponseInfo(&info)); err == nil {
		t.Error("NewClient accepted WithResponseInfo, which concurrent calls would share")
	}

	mock.RegisterResponder(http.MethodPost, chatURL, func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(200, content("hi")+finish("stop")+done)
		resp.Header.Set("Content-Type", "text/event-stream")
		resp.Header.Set("X-Request-Id", "req-stream")
		return resp, nil
	})
	stream, err := client.Chat.Stream(context.Background(), hello(), infergate.WithResponseInfo(&info))
	if err != nil {
		t.Fatal(err)
	}
	stream.Close()
	if info.RequestID != "req-stream" || info.RateLimits != nil {
		t.Errorf("stream info = %+v", info)
	}
}

func TestRateLimitedErrorCarriesLimits(t *testing.T) {
	client, mock := mockClient(t, infergate.WithMaxRetries(0))
	captureCalls(mock, http.MethodPost, chatURL, 429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`,
		http.Header{"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"2026-11-22T20:00:00.5+00:00"}})
	_, err := client.Chat.Create(context.Background(), hello())
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	if rl := apiErr.RateLimits; rl == nil || rl.RemainingTokens != 0 || rl.LimitTokens != -1 || rl.ResetTokens.IsZero() {
		t.Errorf("rate limits = %+v", apiErr.RateLimits)
	}
}

func TestExtraFieldsAreMerged(t *testing.T) {
	client, mock := mockClient(t)
	seen := captureCalls(mock, http.MethodPost, chatURL, 200, okCompletion, nil)
	req := hello()
	req.Extra = map[string]any{"seed": 7, "response_format": map[string]any{"type": "json_object"}, "top_k": 40}
	req.Messages = append(req.Messages, infergate.Message{Role: "developer", Content: "be terse"},
		infergate.UserMessageParts(infergate.ImageURLPart("http://example.com/cat.png")))
	req.Tools = []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f"}}}
	if _, err := client.Chat.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := (*seen)[0].body
	if body["seed"] != 7.0 || body["top_k"] != 40.0 || body["response_format"].(map[string]any)["type"] != "json_object" || body["model"] != "llama-3.3-70b" {
		t.Errorf("body = %v", body)
	}
	msgs := body["messages"].([]any)
	if msgs[1].(map[string]any)["role"] != "developer" {
		t.Errorf("the developer role was not sent: %v", msgs[1])
	}
	if tool := body["tools"].([]any)[0].(map[string]any); tool["type"] != "function" {
		t.Errorf("a tool without Type was sent as %v", tool)
	}
	for _, key := range []string{"temperature", "messages", "stream"} {
		req.Extra = map[string]any{key: 1}
		_, err := client.Chat.Create(context.Background(), req)
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) || ve.Field != "Extra" {
			t.Errorf("Extra[%q]: %v, want a ValidationError", key, err)
		}
	}
	req.Extra = map[string]any{"bad": func() {}}
	if _, err := client.Chat.Create(context.Background(), req); err == nil || len(*seen) != 1 {
		t.Errorf("an unencodable extra value: %v", err)
	}
}

func TestExtraOnEmbeddingsAndSpeech(t *testing.T) {
	client, mock := mockClient(t)
	emb := captureCalls(mock, http.MethodPost, "https://gw.test/api/v1/embeddings", 200,
		`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`, nil)
	if _, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: []string{"a"}, Extra: map[string]any{"truncate": "END"}}); err != nil {
		t.Fatal(err)
	}
	if (*emb)[0].body["truncate"] != "END" || (*emb)[0].body["encoding_format"] != "base64" {
		t.Errorf("embeddings body = %v", (*emb)[0].body)
	}
	_, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: []string{"a"}, Extra: map[string]any{"input": "b"}})
	var ve *infergate.ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("a modelled key in embeddings Extra: %v", err)
	}
	_, err = client.Audio.Speech(context.Background(), infergate.SpeechRequest{Input: "hi", Extra: map[string]any{"voice": "x"}})
	if !errors.As(err, &ve) {
		t.Errorf("a modelled key in speech Extra: %v", err)
	}
}

func TestAccessorsNeverPanic(t *testing.T) {
	var empty infergate.ChatCompletion
	if empty.Text() != "" || empty.ToolCalls() != nil || empty.Reasoning() != "" || empty.FinishReason() != "" {
		t.Error("accessors of a completion without choices")
	}
	full := infergate.ChatCompletion{Choices: []infergate.Choice{{FinishReason: "tool_calls",
		Message: infergate.Message{Reasoning: "r", ToolCalls: []infergate.ToolCall{{ID: "a"}}}}}}
	if full.ToolCalls()[0].ID != "a" || full.Reasoning() != "r" || full.FinishReason() != infergate.FinishReasonToolCalls {
		t.Errorf("accessors of %+v", full)
	}
}

func TestErrorMessagesNameThePackageOnce(t *testing.T) {
	stream := openStream(t, content("a"))
	for stream.Next() {
	}
	client, mock := mockClient(t, infergate.WithMaxRetries(0))
	captureCalls(mock, http.MethodPost, chatURL, 200, `{"error":{"message":"quota"}}`, nil)
	_, apiErr := client.Chat.Create(context.Background(), hello())
	for _, err := range []error{stream.Err(), apiErr} {
		if err == nil || strings.Count(err.Error(), "infergate:") != 1 {
			t.Errorf("%q should name the package exactly once", err)
		}
	}
	if !strings.Contains(apiErr.Error(), "answered 200 OK but reported an error: quota") {
		t.Errorf("an error in a 200 reads %q", apiErr)
	}
	if !strings.Contains(stream.Err().Error(), "after 1 chunk ") {
		t.Errorf("%q should say 1 chunk", stream.Err())
	}
	if !strings.HasPrefix(infergate.ErrLineTooLong.Error(), "infergate: ") {
		t.Errorf("ErrLineTooLong reads %q", infergate.ErrLineTooLong)
	}
}
