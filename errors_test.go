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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func TestErrorEnvelopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		status   int
		body     string
		want     infergate.APIError
		sentinel error
	}{
		{
			name: "error object with string code", status: 400,
			body: `{"error":{"message":"model x not found","type":"invalid_request_error","param":"model","code":"model_not_found","suggestions":["llama-3.3-70b"]}}`,
			want: infergate.APIError{StatusCode: 400, Type: "invalid_request_error", Code: "model_not_found", Param: "model", Message: "model x not found"},
		},
		{
			name: "error object with null code", status: 500,
			body:     `{"error":{"message":"provider failed","type":"server_error","param":null,"code":null}}`,
			want:     infergate.APIError{StatusCode: 500, Type: "server_error", Message: "provider failed"},
			sentinel: infergate.ErrServer,
		},
		{
			name: "error object with numeric code", status: 429,
			body:     `{"error":{"message":"slow down","type":"tokens","code":429}}`,
			want:     infergate.APIError{StatusCode: 429, Type: "tokens", Code: "429", Message: "slow down"},
			sentinel: infergate.ErrRateLimited,
		},
		{
			name: "insufficient balance with extra fields", status: 402,
			body:     `{"error":{"message":"balance too low","type":"insufficient_balance","code":"insufficient_balance","available":"0.1","estimated_cost":"0.5"}}`,
			want:     infergate.APIError{StatusCode: 402, Type: "insufficient_balance", Code: "insufficient_balance", Message: "balance too low"},
			sentinel: infergate.ErrInsufficientBalance,
		},
		{
			name: "error as text", status: 502,
			body:     `{"error":"bad gateway"}`,
			want:     infergate.APIError{StatusCode: 502, Message: "bad gateway"},
			sentinel: infergate.ErrServer,
		},
		{
			name: "detail as text", status: 401,
			body:     `{"detail":"Invalid API key"}`,
			want:     infergate.APIError{StatusCode: 401, Message: "Invalid API key"},
			sentinel: infergate.ErrUnauthorized,
		},
		{
			name: "detail as a validation list", status: 422,
			body: `{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{}},{"type":"float","loc":["body","temperature"],"msg":"bad float","input":"x"}]}`,
			want: infergate.APIError{StatusCode: 422, Message: "body.messages: Field required; body.temperature: bad float"},
		},
		{
			name: "provider error passed through", status: 400,
			body: `{"providerModelError":{"error":{"message":"model unavailable"}},"statusCode":503}`,
			want: infergate.APIError{StatusCode: 400, Message: "model unavailable"},
		},
		{
			name: "HTML page", status: 502,
			body:     "<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>",
			want:     infergate.APIError{StatusCode: 502, Message: "502 Bad Gateway"},
			sentinel: infergate.ErrServer,
		},
		{
			name: "plain text", status: 404,
			body:     "404 page not found\n",
			want:     infergate.APIError{StatusCode: 404, Message: "404 page not found"},
			sentinel: infergate.ErrNotFound,
		},
		{
			name: "error body with status 200", status: 200,
			body: `{"error":"session expired"}`,
			want: infergate.APIError{StatusCode: 200, Message: "session expired"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mock := mockClient(t, infergate.WithMaxRetries(0))
			mock.RegisterResponder(http.MethodPost, chatURL, status(tt.status, tt.body, "X-Request-Id", "0a1b2c3d"))
			_, err := c.Chat.Create(context.Background(), hello())
			var apiErr *infergate.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *APIError", err)
			}
			tt.want.RequestID, tt.want.Attempts = "0a1b2c3d", 1
			if diff := cmp.Diff(tt.want, *apiErr, cmpopts.IgnoreFields(infergate.APIError{}, "Header", "Body")); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
			if string(apiErr.Body) != tt.body {
				t.Errorf("raw body = %q, want %q", apiErr.Body, tt.body)
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("errors.Is(err, %v) = false", tt.sentinel)
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  infergate.APIError
		want string
	}{
		{infergate.APIError{StatusCode: 400, Code: "model_not_found", Message: "no such model", RequestID: "0a1b2c3d"},
			"infergate: 400 Bad Request: model_not_found: no such model (request 0a1b2c3d)"},
		{infergate.APIError{StatusCode: 503, Type: "server_error", Message: "overloaded", RequestID: "r1", Attempts: 3},
			"infergate: 503 Service Unavailable after 3 attempts: server_error: overloaded (request r1)"},
		{infergate.APIError{StatusCode: 429, Message: "slow down", Attempts: 2, RetryAfter: time.Minute},
			"infergate: 429 Too Many Requests after 2 attempts: slow down (retry after 1m0s)"},
		{infergate.APIError{StatusCode: 500, Message: "boom", Attempts: 1}, "infergate: 500 Internal Server Error: boom"},
		{infergate.APIError{StatusCode: 200, Message: "session expired", Attempts: 2},
			"infergate: the server answered 200 OK but reported an error after 2 attempts: session expired"},
		// A proxy page whose title is the status line says nothing more than the status.
		{infergate.APIError{StatusCode: 502, Message: "502 Bad Gateway", Attempts: 3}, "infergate: 502 Bad Gateway after 3 attempts"},
		// So does a framework's bare {"detail":"Not Found"}.
		{infergate.APIError{StatusCode: 404, Message: "Not Found", RequestID: "r2"}, "infergate: 404 Not Found (request r2)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestTransportErrorMessage(t *testing.T) {
	t.Parallel()
	refused := errors.New("dial tcp 127.0.0.1:9: connect: connection refused")
	tests := []struct {
		err  infergate.TransportError
		want string
	}{
		{infergate.TransportError{Method: "POST", Path: "/api/v1/chat/completions", Attempts: 3, Err: refused},
			"infergate: POST /api/v1/chat/completions: giving up after 3 attempts: dial tcp 127.0.0.1:9: connect: connection refused"},
		{infergate.TransportError{Method: "GET", Path: "/api/v1/models", Attempts: 1, Err: refused},
			"infergate: GET /api/v1/models: dial tcp 127.0.0.1:9: connect: connection refused"},
		{infergate.TransportError{Method: "GET", Path: "/health", Attempts: 2, Err: infergate.ErrStreamTimeout},
			"infergate: GET /health: giving up after 2 attempts: stream timed out"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	err := error(&infergate.TransportError{Method: "GET", Path: "/", Attempts: 4, Err: fmt.Errorf("read: %w", context.DeadlineExceeded)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v does not unwrap to context.DeadlineExceeded", err)
	}
}

// A message names the package once, at its start, also when it is built around another of the
// package's errors: each case is a way the SDK wraps or quotes one, reached through the public API.
func TestErrorMessagesNameThePackageOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stream := openStream(t, content("a"))
	for stream.Next() {
	}
	client, mock := mockClient(t, infergate.WithMaxRetries(0))
	captureCalls(mock, http.MethodPost, chatURL, 200, `{"error":{"message":"quota"}}`, nil)
	_, apiErr := client.Chat.Create(ctx, hello())
	if !strings.Contains(apiErr.Error(), "answered 200 OK but reported an error: quota") {
		t.Errorf("an error in a 200 reads %q", apiErr)
	}
	if !strings.Contains(stream.Err().Error(), "after 1 chunk ") {
		t.Errorf("%q should say 1 chunk", stream.Err())
	}
	noSessions := gatewaytest.New(t, gatewaytest.WithoutSessions()).Client()
	down := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError),
		gatewaytest.WithModelDown("b", gatewaytest.OutageRetryFailed)).Client(infergate.WithMaxRetries(0))
	undecodable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","title":"t","created_at":5}`)
	}))
	t.Cleanup(undecodable.Close)
	catalogue := gatewaytest.New(t).Client()
	costly, err := infergate.NewToolFromSchema("costly", "", json.RawMessage(doublingSchema(27)), echoArguments)
	if err != nil {
		t.Fatal(err)
	}
	lookup, err := infergate.NewTool("lookup", "", func(ctx context.Context, in struct{ Name string }) (string, error) {
		_, err := catalogue.Models.Get(ctx, in.Name)
		return "", err
	})
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]func() error{
		"a stream cut short":   stream.Err,
		"an error in a 200":    func() error { return apiErr },
		"ErrLineTooLong":       func() error { return infergate.ErrLineTooLong },
		"sessions unsupported": func() error { _, err := noSessions.Sessions.Ping(ctx); return err },
		"sessions unsupported on opening one": func() error {
			_, err := noSessions.Sessions.CreateForModel(ctx, "llama-3.3-70b", infergate.SessionOptions{Duration: time.Hour})
			return err
		},
		"every model failed": func() error {
			_, err := down.Chat.Create(ctx, askModel("a", "hi"), infergate.WithFallbackModels("b"))
			return err
		},
		"every model of a stream failed": func() error {
			st, err := down.Chat.Stream(ctx, askModel("b", "hi"), infergate.WithFallbackModels("a"))
			if err == nil {
				st.Close()
			}
			return err
		},
		"a body that does not decode": func() error {
			c, err := infergate.NewClient(infergate.WithAPIKey("sk-test-key"), infergate.WithBaseURL(undecodable.URL))
			if err != nil {
				return err
			}
			_, err = c.History.Get(ctx, "c1")
			return err
		},
		"a tool's arguments too costly to check": func() error { _, err := costly.Call(ctx, `{}`); return err },
		"a tool failing with the SDK's error":    func() error { _, err := lookup.Call(ctx, `{"Name":"no-such-model"}`); return err },
	}
	for name, call := range errs {
		err := call()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "infergate: ") || strings.Count(msg, "infergate:") != 1 {
			t.Errorf("%s: %q; want the package named once, at the start", name, msg)
		}
	}
}

// The sessions-unsupported error says each thing once and still matches both what it is and the
// 404 it came from.
func TestSessionsUnsupportedMessage(t *testing.T) {
	t.Parallel()
	_, err := gatewaytest.New(t, gatewaytest.WithoutSessions()).Client().Sessions.Ping(context.Background())
	var apiErr *infergate.APIError
	if !errors.Is(err, infergate.ErrSessionsUnsupported) || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Fatalf("err = %v; want ErrSessionsUnsupported around the 404", err)
	}
	if want := "infergate: this gateway does not expose session routes: 404 Not Found (request " + apiErr.RequestID + ")"; err.Error() != want {
		t.Errorf("err = %q; want %q", err.Error(), want)
	}
}

// llama.cpp and GPUStack's llama-box end a failed stream with a line that is neither data nor an
// event ("error: ..."): the error it reports is the stream's, typed, its line kept as Raw.
func TestStreamErrorOnAnErrorLine(t *testing.T) {
	t.Parallel()
	ignoreEnded := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ended" }, cmp.Ignore())
	for _, c := range []struct {
		name, tail string
		want       infergate.StreamError
	}{{
		name: "GPUStack llama-box: an envelope, then the body ends",
		tail: `error: {"error":{"code":500,"message":"failed to decode: KV cache is full","type":"server_error"}}` + "\n",
		want: infergate.StreamError{Message: "failed to decode: KV cache is full", Type: "server_error", Code: "500", StatusCode: 500},
	}, {
		name: "llama.cpp before PR 16109: the bare error object, then [DONE]",
		tail: `error: {"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"invalid_request_error"}` + "\n\n" + done,
		want: infergate.StreamError{Message: "the request exceeds the available context size. try increasing the context size or enable context shift",
			Type: "invalid_request_error", Code: "400", StatusCode: 400},
	}, {
		name: "another field holding an envelope",
		tail: `failure:{"error":{"message":"upstream died","status_code":503}}` + "\r\n",
		want: infergate.StreamError{Message: "upstream died", StatusCode: 503},
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stream, err := testClient(t, serveStream(t, content("x")+content("y")+c.tail, 7).URL).Chat.Stream(context.Background(), hello())
			if err != nil {
				t.Fatal(err)
			}
			for stream.Next() {
			}
			var se *infergate.StreamError
			if !errors.As(stream.Err(), &se) || !errors.Is(stream.Err(), infergate.ErrIncompleteStream) {
				t.Fatalf("Err() = %v, want a *StreamError that ended the stream", stream.Err())
			}
			c.want.Raw = strings.TrimRight(strings.TrimSuffix(c.tail, done), "\r\n")
			if diff := cmp.Diff(c.want, *se, cmp.AllowUnexported(infergate.StreamError{}), ignoreEnded); diff != "" {
				t.Errorf("StreamError (-want +got):\n%s", diff)
			}
			if errors.Is(se, infergate.ErrServer) != (c.want.StatusCode >= 500) {
				t.Errorf("errors.Is(ErrServer) = %v for status %d", !(c.want.StatusCode >= 500), c.want.StatusCode)
			}
			if got := stream.Completion().Text(); got != "xy" {
				t.Errorf("text %q", got)
			}
		})
	}
}
