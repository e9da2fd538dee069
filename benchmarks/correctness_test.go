package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These tests check that every contender decodes every workload to the same, right answer, so that
// the benchmarks compare equal work. They run the benchmarks' exact workloads, once.

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestStreamText(t *testing.T) {
	w := textStream(textChunks)
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			c, rt := replayed(t, kind, w.body, "text/event-stream")
			got, err := c.streamText(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			want := streamResult{text: w.text, chunks: w.chunks}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(streamResult{})); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
			wantReq := seenRequest{method: http.MethodPost, path: "/api/v1/chat/completions"}
			if diff := cmp.Diff(wantReq, rt.lastRequest(), cmp.AllowUnexported(seenRequest{}), ignoreBodySize); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

var ignoreBodySize = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".bodyBytes" }, cmp.Ignore())

func TestStreamToolCall(t *testing.T) {
	w := toolStream(toolFragments, false)
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			c, _ := replayed(t, kind, w.body, "text/event-stream")
			got, err := c.streamTool(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			want := streamResult{id: "call_7Xk2", name: "get_weather", args: w.args}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(streamResult{}), ignoreChunks); diff != "" {
				t.Errorf("reassembled call (-want +got):\n%s", diff)
			}
			if !json.Valid([]byte(got.args)) {
				t.Errorf("arguments are not valid JSON: %.80s...", got.args)
			}
		})
	}
}

var ignoreChunks = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".chunks" }, cmp.Ignore())

// TestStreamToolPlaceholder feeds the "{}" placeholder that some provider backends send before the
// real arguments. infergate must drop it; the others keep it, and the test says so, so that a
// change in their behaviour shows up here and in the table.
func TestStreamToolPlaceholder(t *testing.T) {
	w := toolStream(toolFragments, true)
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			c, _ := replayed(t, kind, w.body, "text/event-stream")
			got, err := c.streamTool(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case got.args == w.args:
				t.Logf("%s drops the placeholder: valid JSON", kind.name)
			case kind.name != "infergate" && got.args == "{}"+w.args:
				t.Logf("%s keeps the placeholder: invalid JSON %.30s...", kind.name, got.args)
			default:
				t.Errorf("arguments = %.60s..., want %.60s...", got.args, w.args)
			}
		})
	}
}

func TestComplete(t *testing.T) {
	body, text := completionBody(completionSize)
	if len(body) < completionSize-1000 || len(body) > completionSize+1000 {
		t.Fatalf("completion body is %d bytes, want about %d", len(body), completionSize)
	}
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			c, rt := replayed(t, kind, body, "application/json")
			got, err := c.complete(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			if got != text {
				t.Errorf("text is %d bytes starting %.40q, want %d bytes", len(got), got, len(text))
			}
			if req := rt.lastRequest(); req.path != "/api/v1/chat/completions" {
				t.Errorf("path = %s", req.path)
			}
		})
	}
}

// TestCompleteCall checks that every contender reads the 50 KB arguments of a non-streamed tool
// call whole.
func TestCompleteCall(t *testing.T) {
	_, args := objectJSON()
	body := objectCompletionBody(args)
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			c, _ := replayed(t, kind, body, "application/json")
			got, err := c.completeCall(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			if got != string(args) {
				t.Errorf("arguments are %d bytes starting %.40q, want %d bytes", len(got), got, len(args))
			}
		})
	}
}

// TestSendHistory checks that every contender sends the whole history, with nothing added or lost.
func TestSendHistory(t *testing.T) {
	text := 0
	for _, h := range history {
		text += len(h.content)
	}
	if len(history) != historyTurns || text < historySize || text > historySize+historySize/10 {
		t.Fatalf("history has %d turns and %d bytes of text, want %d turns and about %d bytes", len(history), text, historyTurns, historySize)
	}
	want := make([]sentMessage, len(history))
	for i, h := range history {
		want[i] = sentMessage{Role: h.role, Content: h.content, ToolCallID: h.toolCallID}
		if h.callID != "" {
			want[i].ToolCalls = []sentToolCall{{ID: h.callID, Type: "function", Function: sentFunction{Name: h.callName, Arguments: h.callArgs}}}
		}
	}
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			capture := &captureTransport{base: newReplay([]byte(shortAnswer), "application/json")}
			c := kind.build(t, fakeBase, &http.Client{Transport: capture})
			got, err := c.sendHistory(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			if got != "Sunny, 21 °C." {
				t.Errorf("answer = %q", got)
			}
			var sent struct {
				Model    string        `json:"model"`
				Messages []sentMessage `json:"messages"`
			}
			if err := json.Unmarshal(capture.body, &sent); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if sent.Model != chatModel {
				t.Errorf("model = %q", sent.Model)
			}
			if diff := cmp.Diff(want, sent.Messages); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

type sentMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []sentToolCall `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
}

type sentToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function sentFunction `json:"function"`
}

type sentFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// captureTransport keeps the last request's body and passes the request on.
type captureTransport struct {
	base http.RoundTripper
	body []byte
}

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	c.body = body
	req.Body = io.NopCloser(bytes.NewReader(body))
	return c.base.RoundTrip(req)
}

func TestListModels(t *testing.T) {
	body := catalogueBody(catalogueSize)
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			c, rt := replayed(t, kind, body, "application/json")
			ids, err := c.listModels(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != catalogueSize || ids[0] != "model-0000" || ids[catalogueSize-1] != "model-0999" {
				t.Errorf("got %d models, want %d from model-0000 to model-0999", len(ids), catalogueSize)
			}
			if req := rt.lastRequest(); req.method != http.MethodGet || !strings.HasSuffix(req.path, "/models") {
				t.Errorf("request = %s %s, want GET .../models", req.method, req.path)
			}
		})
	}
}

func TestTranscribe(t *testing.T) {
	const size = 1 << 20
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			c, rt := replayed(t, kind, []byte(`{"text":"hello world"}`), "application/json")
			got, err := c.transcribe(testContext(t), sparseAudio(t, size))
			if err != nil {
				t.Fatal(err)
			}
			if got != "hello world" {
				t.Errorf("transcript = %q", got)
			}
			req := rt.lastRequest()
			if req.path != "/api/v1/audio/transcriptions" || req.bodyBytes <= size {
				t.Errorf("request = %s with %d body bytes, want the whole %d-byte file", req.path, req.bodyBytes, size)
			}
		})
	}
}

func TestFirstDelta(t *testing.T) {
	srv := newFirstDeltaServer(t)
	for _, kind := range contenders {
		t.Run(kind.name, func(t *testing.T) {
			arrival := &arrivalTransport{base: srv.Client().Transport}
			c := kind.build(t, srv.URL+"/api/v1", &http.Client{Transport: arrival})
			got, text, err := srv.measure(testContext(t), c, arrival)
			if err != nil {
				t.Fatal(err)
			}
			if text != firstDeltaText || got.wake <= 0 || got.total <= got.wake {
				t.Errorf("first delta %q after %v (woken after %v), want %q after a positive wake-up and some work",
					text, got.total, got.wake, firstDeltaText)
			}
		})
	}
}
