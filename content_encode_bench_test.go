package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// history20 is a 20-turn, ~50 KB conversation with a tool call and its result, as a chat that has
// run for a while sends on every turn.
func history20() ChatRequest {
	req := ChatRequest{Model: "llama-3.3-70b", Temperature: Ptr(0.2), MaxTokens: Ptr(512)}
	req.Messages = append(req.Messages, SystemMessage("You are a helpful assistant. Answer briefly."))
	para := strings.Repeat("The quick brown fox jumps over the lazy dog, \"quoted\" and <tagged>. ", 36)
	for i := range 19 {
		switch i % 3 {
		case 0:
			req.Messages = append(req.Messages, UserMessage(para))
		case 1:
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: para, Reasoning: "thinking about it",
				ToolCalls: []ToolCall{{ID: "call_1", Type: "function", Function: FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}}})
		default:
			req.Messages = append(req.Messages, ToolResultMessage("call_1", para))
		}
	}
	return req
}

func BenchmarkEncodeChat(b *testing.B) {
	c, err := NewClient(WithAPIKey("sk-bench"))
	if err != nil {
		b.Fatal(err)
	}
	req := history20()
	body, _ := c.cfg.encodeChat(&req, false)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.cfg.encodeChat(&req, false); err != nil {
			b.Fatal(err)
		}
	}
}

// replayRT answers every request with the same body, as a server that has it ready would.
type replayRT struct{ body []byte }

func (r replayRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(r.body)), ContentLength: int64(len(r.body)), Request: req}, nil
}

func BenchmarkCreate50KB(b *testing.B) {
	text := strings.Repeat("The answer goes on, with \"quotes\" and a newline\n. ", 1000)[:50_000]
	body, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}})
	c, err := NewClient(WithAPIKey("sk-bench"), WithBaseURL("http://gw.test"), WithHTTPClient(&http.Client{Transport: replayRT{body}}))
	if err != nil {
		b.Fatal(err)
	}
	req := ChatRequest{Messages: []Message{UserMessage("hi")}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Chat.Create(context.Background(), req)
		if err != nil || len(resp.Text()) != len(text) {
			b.Fatal(err)
		}
	}
}

// catalogue1000 is a catalogue of a thousand models in the deployed gateway's shape.
func catalogue1000() []byte {
	var body bytes.Buffer
	body.WriteString(`{"object":"list","data":[`)
	types := []string{"LLM", "LLM", "EMBEDDING", "STT", "TTS"}
	for i := range 1000 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"id":"model-%04d","blockchainID":"0x%064x","created":%d,"tags":["llm","fast","tier-%d"],"modelType":%q}`,
			i, 0xabcdef0000+i, 1731000000+i, i%3, types[i%len(types)])
	}
	body.WriteString(`]}`)
	return body.Bytes()
}

func BenchmarkDecodeCatalogue1000(b *testing.B) {
	raw := catalogue1000()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var out catalogList
		if ok, _ := out.decodeFast(raw); !ok || len(out.items) != 1000 {
			b.Fatal("the fast path declined the catalogue")
		}
	}
}

// BenchmarkCatalogueFacts1000 is what Models.List adds to the decoding: each of a thousand models
// completed from the built-in table, whose price lookup tries every key of the price file on a
// name it does not know.
func BenchmarkCatalogueFacts1000(b *testing.B) {
	var list catalogList
	if ok, _ := list.decodeFast(catalogue1000()); !ok {
		b.Fatal("the fast path declined the catalogue")
	}
	c := &config{}
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range list.items {
			c.withFacts(m)
		}
	}
}

// BenchmarkCreateShort is a call's fixed cost: a one-message request and a short answer.
func BenchmarkCreateShort(b *testing.B) {
	body := []byte(`{"id":"chatcmpl-8f3a9c2b","object":"chat.completion","created":1731000000,"model":"llama-3.3-70b","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny, 21 °C."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12000,"completion_tokens":6,"total_tokens":12006}}`)
	c, err := NewClient(WithAPIKey("sk-bench"), WithBaseURL("http://gw.test"), WithHTTPClient(&http.Client{Transport: replayRT{body}}))
	if err != nil {
		b.Fatal(err)
	}
	req := ChatRequest{Model: "llama-3.3-70b", Messages: []Message{UserMessage("Tell me a long story.")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Chat.Create(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// agentTools are eight tools with schemas from SchemaFor, as an agent sends on every turn.
func agentTools(b *testing.B) []Tool {
	type place struct {
		City    string   `json:"city" jsonschema:"the city, as its people spell it"`
		Country string   `json:"country,omitempty" jsonschema:"ISO 3166 code"`
		Units   []string `json:"units,omitempty"`
	}
	type search struct {
		Query   string  `json:"query"`
		Limit   int     `json:"limit,omitempty"`
		Since   string  `json:"since,omitempty" jsonschema:"a date, YYYY-MM-DD"`
		Score   float64 `json:"min_score,omitempty"`
		Sources []place `json:"sources,omitempty"`
	}
	placeSchema, err := SchemaFor[place]()
	if err != nil {
		b.Fatal(err)
	}
	searchSchema, err := SchemaFor[search]()
	if err != nil {
		b.Fatal(err)
	}
	tools := make([]Tool, 8)
	for i := range tools {
		schema := placeSchema
		if i%2 == 1 {
			schema = searchSchema
		}
		tools[i] = Tool{Type: "function", Function: FunctionDefinition{Name: fmt.Sprintf("tool_%d", i),
			Description: "Looks something up for the user and answers in one line.", Parameters: schema}}
	}
	return tools
}

// BenchmarkEncodeChatTools checks and encodes a short request carrying eight tools, beside
// encoding/json encoding the same request.
func BenchmarkEncodeChatTools(b *testing.B) {
	c, err := NewClient(WithAPIKey("sk-bench"))
	if err != nil {
		b.Fatal(err)
	}
	req := ChatRequest{Model: "llama-3.3-70b", Messages: []Message{UserMessage("What is the weather in Paris?")}, Tools: agentTools(b)}
	body, _ := c.cfg.encodeChat(&req, false)
	b.Run("SDK", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.cfg.encodeChat(&req, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(wireChatRequest{ChatRequest: &req}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
