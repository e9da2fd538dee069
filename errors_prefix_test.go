package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// An error that wraps or quotes another of the package's errors names the package once: its message
// starts with "infergate: " and has it nowhere else. Each case is a way the SDK builds a message
// around another error's text, reached through the public API.
func TestErrorsNameThePackageOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	noSessions := gatewaytest.New(t, gatewaytest.WithoutSessions()).Client()
	down := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError),
		gatewaytest.WithModelDown("b", gatewaytest.OutageRetryFailed))
	decoding := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","title":"t","created_at":5}`)
	}))
	t.Cleanup(decoding.Close)
	catalogue := gatewaytest.New(t).Client()
	costly, err := infergate.NewToolFromSchema("costly", "", json.RawMessage(doublingSchema(27)), echoArguments)
	if err != nil {
		t.Fatal(err)
	}
	failing, err := infergate.NewTool("lookup", "", func(ctx context.Context, in struct{ Name string }) (string, error) {
		_, err := catalogue.Models.Get(ctx, in.Name)
		return "", err
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func() error{
		"sessions unsupported, CreateForModel": func() error {
			_, err := noSessions.Sessions.CreateForModel(ctx, "llama-3.3-70b", infergate.SessionOptions{Duration: time.Hour})
			return err
		},
		"sessions unsupported, Ping": func() error { _, err := noSessions.Sessions.Ping(ctx); return err },
		"sessions unsupported, Close": func() error { _, err := noSessions.Sessions.Close(ctx); return err },
		"every model failed, Create": func() error {
			_, err := down.Client(infergate.WithMaxRetries(0)).Chat.Create(ctx, askModel("a", "hi"), infergate.WithFallbackModels("b"))
			return err
		},
		"every model failed, Stream": func() error {
			st, err := down.Client(infergate.WithMaxRetries(0)).Chat.Stream(ctx, askModel("b", "hi"), infergate.WithFallbackModels("a"))
			if err == nil {
				st.Close()
			}
			return err
		},
		"a body the SDK cannot decode": func() error {
			c, err := infergate.NewClient(infergate.WithAPIKey("sk-test-key"), infergate.WithBaseURL(decoding.URL))
			if err != nil {
				return err
			}
			_, err = c.History.Get(ctx, "c1")
			return err
		},
		"a tool's arguments too costly to check": func() error { _, err := costly.Call(ctx, `{}`); return err },
		"a tool failing with the SDK's error": func() error { _, err := failing.Call(ctx, `{"Name":"no-such-model"}`); return err },
	}
	for name, call := range cases {
		err := call()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "infergate: ") || strings.Contains(msg[len("infergate: "):], "infergate: ") {
			t.Errorf("%s: %q; want the package named once, at the start", name, msg)
		}
	}
}

// The sessions-unsupported error reads as one sentence and still matches both what it is and the
// 404 it came from.
func TestSessionsUnsupportedMessage(t *testing.T) {
	t.Parallel()
	_, err := gatewaytest.New(t, gatewaytest.WithoutSessions()).Client().Sessions.Ping(context.Background())
	var apiErr *infergate.APIError
	if !errors.Is(err, infergate.ErrSessionsUnsupported) || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Fatalf("err = %v; want ErrSessionsUnsupported around the 404", err)
	}
	if want := "infergate: this gateway does not expose session routes: 404 Not Found"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q; want it to start %q", err.Error(), want)
	}
}
