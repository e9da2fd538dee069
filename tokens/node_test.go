package tokens_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/tiktoken-go/tokenizer"
)

// The node's count, written again from its algorithm (proxy-router/internal/lib/tokens.go, over
// go-openai v1.41.2's ChatCompletionMessage), and run on the request body the SDK sends, so that
// CountPrompt is checked against what the node reads rather than against the Message it came from.

// nodePart is the part of go-openai's ChatMessagePart that the count reads.
type nodePart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// nodeMessage is the part of go-openai's ChatCompletionMessage that the count reads, decoded as
// go-openai decodes it: first with content as a string (MultiContent has no tag there), and, when
// that fails, with content as a list of parts.
type nodeMessage struct {
	Content      string
	MultiContent []nodePart
	Name         string
}

func (m *nodeMessage) UnmarshalJSON(b []byte) error {
	var text struct {
		Content      string `json:"content"`
		MultiContent []nodePart
		Name         string `json:"name"`
	}
	if err := json.Unmarshal(b, &text); err == nil {
		*m = nodeMessage(text)
		return nil
	}
	var parts struct {
		Content      string
		MultiContent []nodePart `json:"content"`
		Name         string     `json:"name"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	*m = nodeMessage(parts)
	return nil
}

// nodeCodec is built once: the node builds one per count, which gives the same ids, only slower.
var nodeCodec = sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.Cl100kBase) })

// nodeCountTokens is the node's CountTokens: the number of ids Encode returns, the error ignored.
func nodeCountTokens(text string) int {
	enc, err := nodeCodec()
	if err != nil {
		return (len(text) + 3) / 4
	}
	ids, _, _ := enc.Encode(text)
	return len(ids)
}

// nodeCountPrompt is the node's CountPromptTokens.
func nodeCountPrompt(msgs []nodeMessage) int {
	total := 0
	for _, m := range msgs {
		total++
		if len(m.MultiContent) > 0 {
			for _, p := range m.MultiContent {
				if p.Type == "text" {
					total += nodeCountTokens(p.Text)
				}
			}
		} else {
			total += nodeCountTokens(m.Content)
		}
		if m.Name != "" {
			total += nodeCountTokens(m.Name)
		}
	}
	return total + 3*len(msgs)
}

// nodeCountBody decodes a chat request body as the node does and counts its messages.
func nodeCountBody(t testing.TB, body []byte) int {
	t.Helper()
	var req struct {
		Messages []nodeMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("the node cannot read the request: %v\n%s", err, body)
	}
	return nodeCountPrompt(req.Messages)
}

// wire sends conversations through a client and keeps the bodies its server received.
type wire struct {
	client *infergate.Client
	bodies chan []byte
}

const answer = `{"id":"c","object":"chat.completion","created":1,"model":"m",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`

func newWire(t *testing.T) *wire {
	t.Helper()
	w := &wire{bodies: make(chan []byte, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		w.bodies <- body
		rw.Header().Set("Content-Type", "application/json")
		io.WriteString(rw, answer)
	}))
	t.Cleanup(srv.Close)
	client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey("test-key"),
		infergate.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	w.client = client
	return w
}

// send returns the body the client sends for msgs.
func (w *wire) send(t *testing.T, msgs []infergate.Message) []byte {
	t.Helper()
	req := infergate.ChatRequest{Model: "m", Messages: msgs}
	if _, err := w.client.Chat.Create(context.Background(), req); err != nil {
		t.Fatalf("sending: %v", err)
	}
	return <-w.bodies
}
