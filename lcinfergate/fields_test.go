package lcinfergate_test

import (
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

// Vendor fields as Gemini's OpenAI-compatible endpoint and OpenRouter send them: a thought
// signature on a tool call, reasoning details on the message. Their text holds what re-encoding
// would change, so that only the bytes as received pass.
const (
	callValue    = `{"google":{"thought_signature":"CiQB0e2K<&>\/4=="},"n":12345678901234567890}`
	messageValue = `[{"type":"reasoning.text","text":"Let me check.","signature":"EqoB\u0041==","index":0}]`
	callField    = `"extra_content":` + callValue
	messageField = `"reasoning_details":` + messageValue
)

const vendorAnswer = `{"id":"gen-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning_details": ` +
	messageValue + `,"tool_calls":[{"extra_content": ` + callValue + `,"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"call_1","type":"function"}]},"finish_reason":"tool_calls"}]}`

// The same answer streamed, each field in two fragments: the list's elements are appended, the
// objects merged and their strings joined.
var vendorStream = gatewaytest.ErrorReply{Status: 200, ContentType: "text/event-stream", Body: "data: " +
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_details":[{"type":"reasoning.text","text":"Let me"}],"tool_calls":[{"index":0,"id":"call_1","type":"function","extra_content":{"google":{"thought_signature":"CiQB"}},"function":{"name":"get_weather","arguments":"{\"city\""}}]}}]}` +
	"\n\ndata: " +
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","text":" check."}],"tool_calls":[{"index":0,"extra_content":{"google":{"thought_signature":"<&>"},"n":12345678901234567890},"function":{"arguments":":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}` +
	"\n\ndata: [DONE]\n\n"}

const (
	streamedCallField    = `"extra_content":{"google":{"thought_signature":"CiQB<&>"},"n":12345678901234567890}`
	streamedMessageField = `"reasoning_details":[{"type":"reasoning.text","text":"Let me"},{"type":"reasoning.text","text":" check."}]`
)

// aiTurn is an answer's choice as a langchaingo caller sends it back: its text and tool calls in
// an AI message, each call's result in a tool message.
func aiTurn(c *llms.ContentChoice) []llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if c.Content != "" {
		ai.Parts = append(ai.Parts, llms.TextContent{Text: c.Content})
	}
	out := []llms.MessageContent{ai}
	for _, tc := range c.ToolCalls {
		out[0].Parts = append(out[0].Parts, tc)
		out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool,
			Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: "sunny"}}})
	}
	return out
}

func requireFields(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("the request lacks %s:\n%s", w, body)
		}
	}
}

// TestVendorFieldsGoBack: the fields of an answer's message and tool calls that the SDK does not
// model go back, as they came, when the answer is part of the next turn's conversation, streamed
// or not, and for an answer without tool calls too.
func TestVendorFieldsGoBack(t *testing.T) {
	t.Parallel()
	textAnswer := strings.Replace(strings.Replace(vendorAnswer, `"content":null`, `"content":"Sunny."`, 1),
		vendorAnswer[strings.Index(vendorAnswer, `,"tool_calls"`):strings.Index(vendorAnswer, `},"finish_reason"`)], "", 1)
	for _, c := range []struct {
		name   string
		answer gatewaytest.ErrorReply
		stream bool
		want   []string
	}{
		{"whole", gatewaytest.ErrorReply{Status: 200, Body: vendorAnswer}, false, []string{messageField, callField}},
		{"streamed", vendorStream, true, []string{streamedMessageField, streamedCallField}},
		{"text", gatewaytest.ErrorReply{Status: 200, Body: textAnswer}, false, []string{messageField}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := gatewaytest.New(t)
			s.FailNext(1, c.answer)
			llm := lcinfergate.New(s.Client(), "")
			history := []llms.MessageContent{human("Weather in Paris?")}
			var opts []llms.CallOption
			if c.stream {
				opts = append(opts, streaming(new([]string)))
			}
			resp := generate(t, llm, history, append(opts, weatherTools)...)
			history = append(history, aiTurn(resp.Choices[0])...)
			generate(t, llm, append(history, human("Thanks.")), weatherTools)
			requireFields(t, string(lastRequest(t, s).Body), c.want...)
		})
	}
}

// TestVendorFieldsInGenerationInfo: a choice's GenerationInfo shows the fields, as the text of a
// JSON object for the message and of a JSON list for the calls.
func TestVendorFieldsInGenerationInfo(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	s.FailNext(1, gatewaytest.ErrorReply{Status: 200, Body: vendorAnswer})
	info := generate(t, lcinfergate.New(s.Client(), ""), []llms.MessageContent{human("Weather?")}).Choices[0].GenerationInfo
	if got, want := info["ExtraFields"], "{"+messageField+"}"; got != want {
		t.Errorf("ExtraFields = %v, want %s", got, want)
	}
	if got, want := info["ToolCallExtraFields"], "[{"+callField+"}]"; got != want {
		t.Errorf("ToolCallExtraFields = %v, want %s", got, want)
	}
}
