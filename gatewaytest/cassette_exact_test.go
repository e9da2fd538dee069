package gatewaytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Bodies as servers other than the fake write them: spaces after separators,
// a final newline, characters Go's encoder would escape (<, >, &, U+2028),
// \u escapes kept as escapes, pretty-printed errors.
const (
	spacedBody  = "{\"id\": \"c-1\", \"object\": \"chat.completion\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": \"<b>Fish & chips</b> \\u00e9t\\u00e9\"}, \"finish_reason\": \"stop\"}]}\n"
	compactBody = `{"id":"c-2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"a <b> & c\/d \u2028 ` + "\u2028\u2029" + `"},"finish_reason":"stop"}]}`
	prettyError = "{\n    \"error\": {\n        \"message\": \"model <x> & y not found\",\n        \"type\": \"invalid_request_error\"\n    }\n}\n"
	streamEvent = `{"id":"c-3","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"<i>&amp;</i>"},"finish_reason":"stop"}]}`
)

// literalServer answers each prompt with fixed bytes, some of them cut short.
func literalServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch req.Messages[0].Content {
		case "spaced":
			io.WriteString(w, spacedBody)
		case "compact":
			io.WriteString(w, compactBody)
		case "error":
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, prettyError)
		case "stream":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+streamEvent+"\n\ndata: [DONE]\n\n")
		case "broken":
			// The body breaks off: the connection closes before the length
			// announced.
			w.Header().Set("Content-Length", "500")
			io.WriteString(w, compactBody[:40])
		case "broken stream":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+streamEvent[:60])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// exactRun sends each prompt and returns, per prompt, the bytes the SDK
// shows of the answer: RawJSON, an APIError's Body, the stream's raw events,
// or the error.
func exactRun(ctx context.Context, c *infergate.Client) []string {
	var out []string
	for _, prompt := range []string{"spaced", "compact", "error", "stream", "broken", "broken stream"} {
		req := infergate.ChatRequest{Model: "m", Messages: []infergate.Message{infergate.UserMessage(prompt)}}
		if strings.Contains(prompt, "stream") {
			st, err := c.Chat.Stream(ctx, req)
			if err != nil {
				out = append(out, "error: "+err.Error())
				continue
			}
			var raw []string
			for st.Next() {
				raw = append(raw, string(st.RawEvent()))
			}
			out = append(out, fmt.Sprintf("%q, unexpected EOF: %v", raw, errors.Is(st.Err(), io.ErrUnexpectedEOF) || errors.Is(st.Err(), infergate.ErrIncompleteStream)))
			st.Close()
			continue
		}
		resp, err := c.Chat.Create(ctx, req)
		var apiErr *infergate.APIError
		switch {
		case errors.As(err, &apiErr):
			out = append(out, string(apiErr.Body))
		case err != nil:
			out = append(out, fmt.Sprintf("error, unexpected EOF: %v", errors.Is(err, io.ErrUnexpectedEOF)))
		default:
			out = append(out, string(resp.RawJSON()))
		}
	}
	return out
}

// A replay gives the SDK the bytes the server sent, body by body and event
// by event, and a body that broke off while recording breaks off again; the
// file stays one a person can read and OpenCassette opens.
func TestCassetteReplaysTheServersBytes(t *testing.T) {
	t.Parallel()
	srv := literalServer(t)
	path := filepath.Join(t.TempDir(), "c.json")
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey("sk-exact-0123456789"),
		infergate.WithMaxRetries(0), rec.Option())
	if err != nil {
		t.Fatal(err)
	}
	live := exactRun(context.Background(), client)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{spacedBody, compactBody, prettyError} {
		if live[i] != want {
			t.Fatalf("live run %d saw %q, want the server's %q", i, live[i], want)
		}
	}
	if live[4] != "error, unexpected EOF: true" {
		t.Fatalf("the broken body read live as %s", live[4])
	}

	play, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteReplay)
	if err != nil {
		t.Fatalf("the file Close wrote does not open: %v", err)
	}
	defer play.Close()
	replayed := exactRun(context.Background(), offline(t, play, infergate.WithMaxRetries(0)))
	for i := range live {
		if replayed[i] != live[i] {
			t.Errorf("answer %d\nlive:     %q\nreplayed: %q", i, live[i], replayed[i])
		}
	}
}
