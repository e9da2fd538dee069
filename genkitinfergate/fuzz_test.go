package genkitinfergate_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/genkitinfergate"
)

// cannedTransport answers every request in process: a short completion, or body as an event
// stream when the request asks for a stream.
type cannedTransport struct{ body atomic.Pointer[string] }

func newCanned(body string) *cannedTransport {
	c := new(cannedTransport)
	c.body.Store(&body)
	return c
}

func (c *cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct{ Stream bool }
	if r.Body != nil {
		_ = json.NewDecoder(r.Body).Decode(&req)
		_ = r.Body.Close()
	}
	ct, body := "application/json", `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`
	if req.Stream {
		ct, body = "text/event-stream", *c.body.Load()
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {ct}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// fuzzModel is a model of a genkit whose plugin's client is answered by t, in process.
func fuzzModel(f *testing.F, t http.RoundTripper) ai.Model {
	client, err := infergate.NewClient(infergate.WithAPIKey("k"), infergate.WithBaseURL("https://gateway.test"),
		infergate.WithHTTPClient(&http.Client{Transport: t}), infergate.WithMaxRetries(0))
	if err != nil {
		f.Fatal(err)
	}
	g := genkit.Init(f.Context(), genkit.WithPlugins(genkitinfergate.New(client)))
	return genkitinfergate.Model(g, "m")
}

// fuzzPart is a part of each shape genkit has, odd ones included (nil, a tool request without its
// request, media of any type), built from text.
func fuzzPart(kind byte, text string) *ai.Part {
	switch kind % 13 {
	case 0:
		return nil
	case 1:
		return ai.NewMediaPart(text, text)
	case 2:
		return ai.NewMediaPart("", "data:"+text)
	case 3:
		return ai.NewToolRequestPart(&ai.ToolRequest{Ref: text, Name: text, Input: map[string]any{text: text}})
	case 4:
		return &ai.Part{Kind: ai.PartToolRequest}
	case 5:
		return ai.NewToolResponsePart(&ai.ToolResponse{Ref: text, Name: text, Output: []any{text, 1.5}})
	case 6:
		return &ai.Part{Kind: ai.PartToolResponse}
	case 7:
		return ai.NewReasoningPart(text, []byte(text))
	case 8:
		return ai.NewDataPart(text)
	case 9:
		return ai.NewCustomPart(map[string]any{text: text})
	case 10:
		return ai.NewToolRequestPart(&ai.ToolRequest{Ref: text, Name: "f", Input: text})
	case 11:
		p := ai.NewToolRequestPart(&ai.ToolRequest{Ref: text, Name: "f"})
		p.Metadata = map[string]any{genkitinfergate.MetadataFields: text}
		return p
	}
	return ai.NewTextPart(text)
}

var fuzzRoles = []ai.Role{ai.RoleUser, ai.RoleModel, ai.RoleSystem, ai.RoleTool, "narrator"}

// FuzzModelRequest sends requests built from arbitrary bytes, as genkit's developer UI sends JSON
// and as a caller builds them: whatever comes, the model returns an answer or an error, never a
// panic.
func FuzzModelRequest(f *testing.F) {
	m := fuzzModel(f, newCanned("data: [DONE]\n\n"))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"config":{"temperature":0.5}}`), []byte{0, 11}, "x", false)
	f.Add([]byte(`{"tools":[{"name":"f","inputSchema":{"type":"object"}}],"toolChoice":"required"}`), []byte{1, 3, 3, 5, 0, 1}, "image/png", true)
	f.Add([]byte(`{"config":{"topK":3,"stopSequences":["a"]},"toolChoice":"sometimes"}`), []byte{1, 4, 3, 6, 4, 9}, "", false)
	f.Add([]byte(`{"messages":[{"role":"model","content":[{"text":"hi"}],"metadata":{"infergate_fields":{"x":[1,"<&>"]}}}]}`), []byte{1, 11}, `{"sig":"c2ln"}`, false)
	f.Fuzz(func(t *testing.T, raw, shape []byte, text string, stream bool) {
		var req ai.ModelRequest
		if json.Unmarshal(raw, &req) != nil {
			req = ai.ModelRequest{}
		}
		for i := 0; i+1 < len(shape) && i < 32; i += 2 {
			msg := &ai.Message{Role: fuzzRoles[int(shape[i])%len(fuzzRoles)]}
			msg.Content = append(msg.Content, fuzzPart(shape[i+1], text))
			req.Messages = append(req.Messages, msg)
		}
		var cb ai.ModelStreamCallback
		if stream {
			cb = func(context.Context, *ai.ModelResponseChunk) error { return nil }
		}
		if resp, err := m.Generate(context.Background(), &req, cb); err == nil && (resp == nil || resp.Message == nil) {
			t.Fatal("no error and no answer")
		}
	})
}

// FuzzStream answers a streamed request with arbitrary events: whatever the stream holds, the
// call ends with an answer or an error, never a panic, and an answer is what its chunks add up to.
func FuzzStream(f *testing.F) {
	head := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":`
	f.Add(head + `[{"index":0,"delta":{"role":"assistant","reasoning":"r"}}]}
` + head + `[{"index":0,"delta":{"content":"a"}}]}
` + head + `[{"index":0,"delta":{"tool_calls":[{"id":"x","function":{"name":"f","arguments":"{}"}}]}}]}
` + head + `[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"a\":1}"}}]}}]}
` + head + `[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	f.Add(head + `[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"reasoning_content":"r","content":[{"type":"thinking","thinking":"t"}]}}]}
{"error":{"message":"gone","status":502}}`)
	f.Add(head + `[]}
[DONE]`)
	canned := newCanned("")
	m := fuzzModel(f, canned)
	f.Fuzz(func(t *testing.T, events string) {
		var body strings.Builder
		for line := range strings.SplitSeq(events, "\n") {
			body.WriteString("data: " + line + "\n\n")
		}
		canned.body.Store(infergate.Ptr(body.String()))
		var streamed []*ai.Part
		resp, err := m.Generate(context.Background(), &ai.ModelRequest{Messages: []*ai.Message{ai.NewUserTextMessage("q")}},
			func(_ context.Context, c *ai.ModelResponseChunk) error {
				streamed = append(streamed, c.Content...)
				return nil
			})
		if err != nil {
			return
		}
		if d := cmp.Diff(merge(resp.Message.Content), merge(streamed)); d != "" {
			t.Fatalf("chunks do not add up to the answer (-answer +chunks):\n%s", d)
		}
	})
}

// merge joins adjacent reasoning parts, and adjacent text parts, as a reader of the chunks does.
func merge(parts []*ai.Part) []*ai.Part {
	var out []*ai.Part
	for _, p := range parts {
		if n := len(out); n > 0 && (p.IsText() || p.IsReasoning()) && out[n-1].Kind == p.Kind {
			joined := *out[n-1]
			joined.Text += p.Text
			out[n-1] = &joined
			continue
		}
		out = append(out, p)
	}
	return out
}
