package infergate_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// modelsRequested lists the model of each chat request the fake gateway saw, in order.
func modelsRequested(gw *gatewaytest.Server) string {
	var out []string
	for _, r := range gw.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			m, _ := r.JSON["model"].(string)
			out = append(out, m)
		}
	}
	return strings.Join(out, ",")
}

func askModel(model, text string) infergate.ChatRequest {
	return infergate.ChatRequest{Model: model, Messages: []infergate.Message{infergate.UserMessage(text)}}
}

// A tool loop's later turns start with the model that served the previous one.
func TestFallbackStickyInToolLoop(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageRetryFailed), gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Paris"}`}}},
		gatewaytest.Reply{Content: "sunny"}))
	c := gw.Client(infergate.WithMaxRetries(0))
	res, err := c.Chat.RunTools(context.Background(), askModel("a", "weather?"), infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}},
		infergate.WithFallbackModels("b")).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer.Text() != "sunny" {
		t.Errorf("answer %q", res.Answer.Text())
	}
	if got := modelsRequested(gw); got != "a,b,b" {
		t.Errorf("models requested %q; want a,b,b (the second turn starts at b)", got)
	}
}

// An object's repair turn starts with the model that served the first, in GenerateObject and in
// StreamObject.
func TestFallbackStickyInObjectRepair(t *testing.T) {
	t.Parallel()
	replies := func() []gatewaytest.Reply {
		return []gatewaytest.Reply{
			{ToolCalls: []gatewaytest.ToolCall{{Name: "Dish", Arguments: `{"name":"Soup","steps":[]}`}}},
			{ToolCalls: []gatewaytest.ToolCall{{Name: "Dish", Arguments: `{"name":"Soup","steps":["boil"],"cuisine":"french"}`}}},
		}
	}
	t.Run("GenerateObject", func(t *testing.T) {
		t.Parallel()
		gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError), gatewaytest.WithReplies(replies()...))
		obj, err := infergate.GenerateObject[Dish](context.Background(), gw.Client(infergate.WithMaxRetries(0)).Chat,
			askModel("a", "soup"), infergate.ObjectSpec{}, infergate.WithFallbackModels("b"))
		if err != nil || obj.Attempts != 2 {
			t.Fatalf("obj %+v, err %v", obj, err)
		}
		if got := modelsRequested(gw); got != "a,b,b" {
			t.Errorf("models requested %q; want a,b,b", got)
		}
	})
	t.Run("StreamObject", func(t *testing.T) {
		t.Parallel()
		gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageRetryFailed), gatewaytest.WithReplies(replies()...))
		obj, err := infergate.StreamObject[Dish](context.Background(), gw.Client(infergate.WithMaxRetries(0)).Chat,
			askModel("a", "soup"), infergate.ObjectSpec{}, infergate.WithFallbackModels("b")).Wait()
		if err != nil || obj.Attempts != 2 {
			t.Fatalf("obj %+v, err %v", obj, err)
		}
		if got := modelsRequested(gw); got != "a,b,b" {
			t.Errorf("models requested %q; want a,b,b", got)
		}
	})
}

// Observers see each model's request as an operation of its own.
func TestFallbackObservedPerModel(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError))
	var mu sync.Mutex
	var seen []string
	observer := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		return ctx, &infergate.OperationHooks{End: func(end infergate.OperationEnd) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, op.Model+":"+map[bool]string{true: "failed", false: "ok"}[end.Err != nil])
		}}
	}
	c := gw.Client(infergate.WithMaxRetries(0), infergate.WithObserver(observer), infergate.WithFallbackModels("b"))
	for _, stream := range []bool{false, true} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		if stream {
			st, err := c.Chat.Stream(context.Background(), askModel("a", "hi"))
			if err != nil {
				t.Fatal(err)
			}
			for st.Next() {
			}
			st.Close()
		} else if _, err := c.Chat.Create(context.Background(), askModel("a", "hi")); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if got := strings.Join(seen, ","); got != "a:failed,b:ok" {
			t.Errorf("stream=%v: operations %q; want a:failed,b:ok", stream, got)
		}
		mu.Unlock()
	}
}

// WithTimeout bounds the whole call, its fallbacks included: the models left when it runs out are
// never asked.
func TestFallbackBoundedByWithTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []string
		slowFailure := infergate.Middleware(func(req *http.Request, _ func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			body, _ := req.GetBody()
			var b strings.Builder
			buf := make([]byte, 512)
			for {
				n, err := body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			mu.Lock()
			asked = append(asked, b.String()[strings.Index(b.String(), `"model":`):][:11])
			mu.Unlock()
			select {
			case <-time.After(2 * time.Second):
			case <-req.Context().Done():
				return nil, req.Context().Err()
			}
			return &http.Response{StatusCode: http.StatusBadGateway, Header: http.Header{"Content-Type": {"application/json"}},
				Body: http.NoBody, Request: req}, nil
		})
		c, err := infergate.NewClient(infergate.WithAPIKey("sk-test"), infergate.WithBaseURL("http://gateway.test"),
			infergate.WithMiddleware(slowFailure), infergate.WithMaxRetries(0), infergate.WithTimeout(3*time.Second),
			infergate.WithFallbackModels("b", "c"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = c.Chat.Create(context.Background(), askModel("a", "hi"))
		var timeout *infergate.TimeoutError
		if !errors.As(err, &timeout) || timeout.Bound != infergate.TimeoutBoundCall {
			t.Errorf("err = %v; want WithTimeout's *TimeoutError", err)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Errorf("the call took %v; want WithTimeout's 3s", d)
		}
		if len(asked) != 2 {
			t.Errorf("asked %q; want a and b only", asked)
		}
	})
}

// A model whose first byte does not come within WithStreamTimeouts' bound is not asked again: the
// call falls back at once.
func TestFallbackOnFirstByteTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []string
		gateway := infergate.Middleware(func(req *http.Request, _ func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			body, _ := req.GetBody()
			raw, _ := io.ReadAll(body)
			slow := strings.Contains(string(raw), `"model":"a"`)
			mu.Lock()
			asked = append(asked, map[bool]string{true: "a", false: "b"}[slow])
			mu.Unlock()
			if slow {
				<-req.Context().Done()
				return nil, req.Context().Err()
			}
			events := `data: {"choices":[{"index":0,"delta":{"content":"answer"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: io.NopCloser(strings.NewReader(events)), Request: req}, nil
		})
		c, err := infergate.NewClient(infergate.WithAPIKey("sk-test"), infergate.WithBaseURL("http://gateway.test"),
			infergate.WithMiddleware(gateway), infergate.WithMaxRetries(2), infergate.WithStreamTimeouts(time.Minute, time.Hour),
			infergate.WithFallbackModels("b"))
		if err != nil {
			t.Fatal(err)
		}
		var info infergate.ResponseInfo
		start := time.Now()
		st, err := c.Chat.Stream(context.Background(), askModel("a", "hi"), infergate.WithResponseInfo(&info))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if !st.Next() || st.Current().Text() != "answer" {
			t.Fatalf("want b's answer; Err %v", st.Err())
		}
		if d := time.Since(start); d != time.Minute {
			t.Errorf("fell back after %v; want the first-byte bound, 1m", d)
		}
		if len(info.Fallbacks) != 1 || !errors.Is(info.Fallbacks[0].Err, infergate.ErrStreamTimeout) {
			t.Errorf("Fallbacks = %v; want a's first-byte timeout", info.Fallbacks)
		}
		if strings.Join(asked, ",") != "a,b" {
			t.Errorf("asked %q; want a once, then b", asked)
		}
	})
}

// gatewaytest's scripted in-band error before the first delta is sent again and the next reply
// serves; after a delta it is not.
func TestResendWithGatewaytestQuirk(t *testing.T) {
	t.Parallel()
	for _, after := range []int{0, 1, 2} {
		gw := gatewaytest.New(t, gatewaytest.WithReplies(
			gatewaytest.Reply{Content: "half answer", Quirks: gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{After: after}}},
			gatewaytest.Reply{Content: "whole answer"}))
		st, err := gw.Client(infergate.WithMaxRetries(1)).Chat.Stream(context.Background(), askModel("", "hi"))
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		for st.Next() {
			text.WriteString(st.Current().Text())
		}
		st.Close()
		want, resent := "whole answer", after < 2 // events 0 and 1 are before the first delta: nothing, the role
		if !resent {
			want = "half "
		}
		if text.String() != want || (st.Err() == nil) != resent || len(gw.Requests()) != map[bool]int{true: 2, false: 1}[resent] {
			t.Errorf("error after %d events: %q, Err %v, %d requests", after, text.String(), st.Err(), len(gw.Requests()))
		}
	}
}
