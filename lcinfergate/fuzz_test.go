package lcinfergate_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

var fuzzRoles = []llms.ChatMessageType{llms.ChatMessageTypeSystem, llms.ChatMessageTypeHuman, llms.ChatMessageTypeAI,
	llms.ChatMessageTypeTool, llms.ChatMessageTypeFunction, llms.ChatMessageTypeGeneric, "other"}

// fuzzPart is a part of each kind langchaingo has, and nil, built from text.
func fuzzPart(kind byte, text string) llms.ContentPart {
	switch kind % 8 {
	case 0:
		return llms.TextPart(text)
	case 1:
		return llms.ImageURLWithDetailPart(text, "low")
	case 2:
		return llms.BinaryPart("image/png", []byte("\x89PNG\r\n\x1a\n"+text))
	case 3:
		return llms.BinaryPart(text, []byte(text))
	case 4:
		return llms.ToolCall{ID: text, Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: text}}
	case 5:
		return llms.ToolCall{ID: text}
	case 6:
		return llms.ToolCallResponse{ToolCallID: text, Name: "f", Content: text}
	}
	return nil
}

// FuzzMessages sends conversations and options built from arbitrary bytes: whatever a caller
// passes, GenerateContent returns an answer or an error, never a panic, and sends nothing it refused.
func FuzzMessages(f *testing.F) {
	s := gatewaytest.NewServer(gatewaytest.WithResponder(func(r gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Content: "ok", Reasoning: "r", ToolCalls: []gatewaytest.ToolCall{{Name: "f", Arguments: "{}"}}}
	}))
	f.Cleanup(s.Close)
	llm := lcinfergate.New(s.Client(infergate.WithMaxRetries(0)), "m")
	f.Add([]byte{1, 0}, "hello", "")
	f.Add([]byte{2, 4, 3, 6, 1, 1}, `{"a":1}`, "required")
	f.Add([]byte{0, 0, 1, 2, 2, 4, 3, 6}, "", "auto")
	f.Fuzz(func(t *testing.T, shape []byte, text, choice string) {
		var msgs []llms.MessageContent
		for i := 0; i+1 < len(shape) && len(msgs) < 16; i += 2 {
			msgs = append(msgs, llms.MessageContent{Role: fuzzRoles[int(shape[i])%len(fuzzRoles)],
				Parts: []llms.ContentPart{fuzzPart(shape[i+1], text)}})
		}
		opts := []llms.CallOption{llms.WithToolChoice(choice), llms.WithTools([]llms.Tool{{Type: "function",
			Function: &llms.FunctionDefinition{Name: "f", Parameters: map[string]any{"type": "object"}}}})}
		if len(shape)%3 == 0 {
			opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
		}
		resp, err := llm.GenerateContent(context.Background(), msgs, opts...)
		if err == nil && (resp == nil || len(resp.Choices) == 0) {
			t.Fatalf("no error and no choice: %+v", resp)
		}
	})
}

// FuzzStreamedAnswer streams arbitrary server bytes through the adapter: it never panics, and when
// the stream succeeds, what the streaming function received adds up to the choice's content.
func FuzzStreamedAnswer(f *testing.F) {
	ok, _ := contentStream(3)
	f.Add(string(ok))
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"hm\",\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{\\\"x\\\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"thinking\",\"thinking\":\"t\"},{\"type\":\"text\",\"text\":\"a\"}]}}]}\n\ndata: {\"error\":{\"message\":\"x\"}}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		client, err := infergate.NewClient(infergate.WithAPIKey("sk-test-key"), infergate.WithBaseURL("http://gateway.invalid"),
			infergate.WithMaxRetries(0), infergate.WithHTTPClient(&http.Client{Transport: replayTransport{body: []byte(body)}}))
		if err != nil {
			t.Fatal(err)
		}
		var streamed strings.Builder
		resp, err := lcinfergate.New(client, "m").GenerateContent(context.Background(), []llms.MessageContent{human("hi")},
			llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
				streamed.Write(chunk)
				return nil
			}))
		if err != nil {
			return
		}
		if len(resp.Choices) == 0 {
			t.Fatal("no error and no choice")
		}
		if got := resp.Choices[0].Content; got != streamed.String() {
			t.Fatalf("streamed %q, but the choice's content is %q", streamed.String(), got)
		}
	})
}
