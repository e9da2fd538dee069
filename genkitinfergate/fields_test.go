package genkitinfergate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/infergate/infergate-go/gatewaytest"
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
	messageValue + `,"tool_calls":[{"extra_content": ` + callValue + `,"function":{"arguments":"{\"city\":\"Paris\"}","name":"weather"},"id":"call_1","type":"function"}]},"finish_reason":"tool_calls"}]}`

// The same answer streamed, each field in two fragments: the list's elements are appended, the
// objects merged and their strings joined.
var vendorStream = rawStream(
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_details":[{"type":"reasoning.text","text":"Let me"}],"tool_calls":[{"index":0,"id":"call_1","type":"function","extra_content":{"google":{"thought_signature":"CiQB"}},"function":{"name":"weather","arguments":"{\"city\""}}]}}]}`,
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","text":" check."}],"tool_calls":[{"index":0,"extra_content":{"google":{"thought_signature":"<&>"},"n":12345678901234567890},"function":{"arguments":":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
)

const (
	streamedCallField    = `"extra_content":{"google":{"thought_signature":"CiQB<&>"},"n":12345678901234567890}`
	streamedMessageField = `"reasoning_details":[{"type":"reasoning.text","text":"Let me"},{"type":"reasoning.text","text":" check."}]`
)

func requireFields(t *testing.T, body []byte, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(string(body), w) {
			t.Errorf("the request lacks %s:\n%s", w, body)
		}
	}
}

// TestVendorFieldsGoBack: the fields of an answer's message and tool calls that the SDK does not
// model go back, as they came, on genkit's next turn of the tool loop, streamed or not, and in a
// conversation a caller continues from the response's history, stored as JSON in between.
func TestVendorFieldsGoBack(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		answer gatewaytest.ErrorReply
		stream bool
		want   []string
	}{
		{"whole", rawJSON(vendorAnswer), false, []string{messageField, callField}},
		{"streamed", vendorStream, true, []string{streamedMessageField, streamedCallField}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g, srv := newGenkit(t)
			weather := genkit.DefineTool(g, "weather", "The weather in a city.",
				func(_ *ai.ToolContext, in cityInput) (string, error) { return "sunny in " + in.City, nil })
			srv.FailNext(1, c.answer)
			srv.Enqueue(gatewaytest.Reply{Content: "Sunny."}, gatewaytest.Reply{Content: "You are welcome."})
			opts := []ai.GenerateOption{ai.WithPrompt("Weather in Paris?"), ai.WithTools(weather)}
			var resp *ai.ModelResponse
			var err error
			if c.stream {
				resp, _, err = streamed(g, opts...)
			} else {
				resp, err = generate(g, opts...)
			}
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			requireFields(t, reqs[len(reqs)-1].Body, c.want...)

			stored, err := json.Marshal(resp.History())
			if err != nil {
				t.Fatal(err)
			}
			var history []*ai.Message
			if err := json.Unmarshal(stored, &history); err != nil {
				t.Fatal(err)
			}
			if _, err := generate(g, ai.WithMessages(history...), ai.WithPrompt("Thanks."), ai.WithTools(weather)); err != nil {
				t.Fatal(err)
			}
			reqs = srv.Requests()
			requireFields(t, reqs[len(reqs)-1].Body, c.want...)
		})
	}
}
