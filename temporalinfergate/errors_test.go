package temporalinfergate_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// Each failure of a call is an application error whose type and retryability tell Temporal
// whether the activity may succeed next time, with the gateway's answer in its details.
func TestActivityErrorsAreClassified(t *testing.T) {
	t.Parallel()
	const retryable, final = false, true
	for _, tc := range []struct {
		name         string
		reply        gatewaytest.ErrorReply
		req          infergate.ChatRequest
		stream       bool
		typ          string
		nonRetryable bool
		next         time.Duration // the delay the error asks for
	}{
		{"400", gatewaytest.DetailErrorReply(400, "bad request"), question("hi"), false, temporalinfergate.ErrorTypeAPI, final, 0},
		{"401", gatewaytest.DetailErrorReply(401, "no key"), question("hi"), false, temporalinfergate.ErrorTypeAPI, final, 0},
		{"402", gatewaytest.DetailErrorReply(402, "no money"), question("hi"), false, temporalinfergate.ErrorTypeAPI, final, 0},
		{"403", gatewaytest.DetailErrorReply(403, "not yours"), question("hi"), false, temporalinfergate.ErrorTypeAPI, final, 0},
		{"404", gatewaytest.DetailErrorReply(404, "no such model"), question("hi"), false, temporalinfergate.ErrorTypeAPI, final, 0},
		{"422", gatewaytest.ValidationErrorReply("messages", "field required"), question("hi"), false, temporalinfergate.ErrorTypeAPI, final, 0},
		{"408", gatewaytest.DetailErrorReply(408, "too slow"), question("hi"), false, temporalinfergate.ErrorTypeAPI, retryable, 0},
		{"409", gatewaytest.DetailErrorReply(409, "busy"), question("hi"), false, temporalinfergate.ErrorTypeAPI, retryable, 0},
		{"429 after its Retry-After", gatewaytest.RateLimitErrorReply(7 * time.Second), question("hi"), false, temporalinfergate.ErrorTypeAPI, retryable, 7 * time.Second},
		{"429 streamed", gatewaytest.RateLimitErrorReply(3 * time.Second), question("hi"), true, temporalinfergate.ErrorTypeAPI, retryable, 3 * time.Second},
		{"500", gatewaytest.DetailErrorReply(500, "oops"), question("hi"), false, temporalinfergate.ErrorTypeAPI, retryable, 0},
		{"502 page", gatewaytest.HTMLErrorReply(502, "<h1>502 Bad Gateway</h1>"), question("hi"), true, temporalinfergate.ErrorTypeAPI, retryable, 0},
		{"503", gatewaytest.DetailErrorReply(503, "down"), question("hi"), false, temporalinfergate.ErrorTypeAPI, retryable, 0},
		{"context window by the server", gatewaytest.OpenAIErrorReply(400, gatewaytest.OpenAIErrorFields{Message: "too long", Code: "context_length_exceeded"}),
			question("hi"), false, temporalinfergate.ErrorTypeContextWindow, final, 0},
		{"insufficient balance in a 200", gatewaytest.OpenAIErrorReply(200, gatewaytest.OpenAIErrorFields{Message: "balance too low", Code: "insufficient_balance"}),
			question("hi"), false, temporalinfergate.ErrorTypeAPI, final, 0},
		{"refused before sending", gatewaytest.ErrorReply{}, infergate.ChatRequest{Model: "llama-3.3-70b"}, false, temporalinfergate.ErrorTypeInvalid, final, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.NewServer()
			defer gw.Close()
			if tc.reply.Status != 0 {
				tc.reply.Body = strings.Replace(tc.reply.Body, "bad request", "bad request for "+gatewaytest.DefaultAPIKey, 1)
				gw.FailNext(1, tc.reply)
			}
			in, err := temporalinfergate.NewChatInput(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			name := temporalinfergate.ChatActivity
			if tc.stream {
				name = temporalinfergate.StreamChatActivity
			}
			_, err = activityEnv(t, gw.Client()).ExecuteActivity(name, in)
			var app *temporal.ApplicationError
			if !errors.As(err, &app) {
				t.Fatalf("err = %#v, want an application error", err)
			}
			if app.Type() != tc.typ || app.NonRetryable() != tc.nonRetryable || app.NextRetryDelay() != tc.next {
				t.Errorf("type %q, non-retryable %v, next delay %s; want %q, %v, %s", app.Type(), app.NonRetryable(), app.NextRetryDelay(), tc.typ, tc.nonRetryable, tc.next)
			}
			if strings.Contains(err.Error(), gatewaytest.DefaultAPIKey) {
				t.Errorf("the error shows the key: %v", err)
			}
			if tc.reply.Status == 0 {
				if _, ok := temporalinfergate.APIErrorOf(err); ok {
					t.Errorf("APIErrorOf found an answer in %v", err)
				}
				return
			}
			api, ok := temporalinfergate.APIErrorOf(err)
			if !ok {
				t.Fatalf("no *APIError in the details of %v", err)
			}
			if api.StatusCode != tc.reply.Status || api.RequestID == "" || api.Message == "" || len(api.Body) == 0 || api.RetryAfter != tc.next {
				t.Errorf("details %+v", api)
			}
			if strings.Contains(string(api.Body), gatewaytest.DefaultAPIKey) {
				t.Errorf("the details' body shows the key: %s", api.Body)
			}
		})
	}
}

// A call that gets no answer, and a stream cut short, may pass: they are retryable.
func TestActivityTransientErrorsAreRetryable(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.Enqueue(gatewaytest.Reply{Content: "a long answer cut short", Quirks: gatewaytest.Quirks{TruncateAfter: 2}})
	in, err := temporalinfergate.NewChatInput(question("hi"))
	if err != nil {
		t.Fatal(err)
	}
	closed := gatewaytest.NewServer()
	closed.Close()
	for name, run := range map[string]func() error{
		"stream cut": func() error {
			_, err := activityEnv(t, gw.Client()).ExecuteActivity(temporalinfergate.StreamChatActivity, in)
			return err
		},
		"no answer": func() error {
			_, err := activityEnv(t, closed.Client()).ExecuteActivity(temporalinfergate.ChatActivity, in)
			return err
		},
	} {
		err := run()
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != temporalinfergate.ErrorTypeTransient || app.NonRetryable() {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func activityEnv(t *testing.T, client *infergate.Client, tools ...*infergate.FuncTool) *testsuite.TestActivityEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	acts, err := temporalinfergate.NewActivities(client, tools...)
	if err != nil {
		t.Fatal(err)
	}
	acts.Register(env)
	return env
}

// A worker whose client falls back (WithFallbackModels) fails the activity only as finally as the
// most hopeful of its models: a first model that does not exist and a second that is down for a
// while make a retryable error, after the second's Retry-After, with the second's answer in the
// details; had every model failed for good, no retry would help.
func TestFallbackErrorIsRetriedWhenAModelMayAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		second       gatewaytest.ErrorReply
		nonRetryable bool
		status       int
		next         time.Duration
	}{
		{"second down", gatewaytest.DetailErrorReply(503, "down").WithRetryAfter(2 * time.Second), false, 503, 2 * time.Second},
		{"second not found either", gatewaytest.DetailErrorReply(404, "no such model"), true, 404, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.NewServer()
			defer gw.Close()
			gw.FailNext(1, gatewaytest.DetailErrorReply(404, "no such model"))
			gw.FailNext(1, tc.second)
			in, err := temporalinfergate.NewChatInput(question("hi"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = activityEnv(t, gw.Client(infergate.WithFallbackModels("mistral-7b"))).ExecuteActivity(temporalinfergate.ChatActivity, in)
			var app *temporal.ApplicationError
			if !errors.As(err, &app) || app.Type() != temporalinfergate.ErrorTypeAPI {
				t.Fatalf("err = %v", err)
			}
			if app.NonRetryable() != tc.nonRetryable || app.NextRetryDelay() != tc.next || len(gw.Requests()) != 2 {
				t.Errorf("non-retryable %v, next delay %s, %d requests; want %v, %s, 2", app.NonRetryable(), app.NextRetryDelay(), len(gw.Requests()), tc.nonRetryable, tc.next)
			}
			if api, ok := temporalinfergate.APIErrorOf(err); !ok || api.StatusCode != tc.status {
				t.Errorf("APIErrorOf = %+v, %v; want status %d", api, ok, tc.status)
			}
		})
	}
}

// An error the gateway sends inside a stream is classified by the status it carries, as an answer's
// is: a client error is not retried, a server's failure or an error without a status is; its
// details hold the *infergate.StreamError.
func TestStreamedErrorIsClassifiedByItsStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status       int
		nonRetryable bool
	}{{400, true}, {403, true}, {422, true}, {429, false}, {503, false}, {0, false}} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.NewServer()
			defer gw.Close()
			gw.Enqueue(gatewaytest.Reply{Content: "never sent", Quirks: gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{
				Message: "the provider refused it", Type: "provider_error", Status: tc.status}}})
			in, err := temporalinfergate.NewChatInput(question("hi"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = activityEnv(t, gw.Client()).ExecuteActivity(temporalinfergate.StreamChatActivity, in)
			var app *temporal.ApplicationError
			if !errors.As(err, &app) || app.Type() != temporalinfergate.ErrorTypeStream || app.NonRetryable() != tc.nonRetryable {
				t.Fatalf("err = %v; want a %s, non-retryable %v", err, temporalinfergate.ErrorTypeStream, tc.nonRetryable)
			}
			var got infergate.StreamError
			if err := app.Details(&got); err != nil || got.StatusCode != tc.status || got.Message != "the provider refused it" {
				t.Errorf("details %+v, %v", got, err)
			}
		})
	}
}
