package einoinfergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
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
	messageValue + `,"tool_calls":[{"extra_content": ` + callValue + `,"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"call_1","type":"function"}]},"finish_reason":"tool_calls"}]}`

// The same answer streamed, each field in two fragments: the list's elements are appended, the
// objects merged and their strings joined.
var vendorStream = rawStream(
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_details":[{"type":"reasoning.text","text":"Let me"}],"tool_calls":[{"index":0,"id":"call_1","type":"function","extra_content":{"google":{"thought_signature":"CiQB"}},"function":{"name":"get_weather","arguments":"{\"city\""}}]}}]}`,
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","text":" check."}],"tool_calls":[{"index":0,"extra_content":{"google":{"thought_signature":"<&>"},"n":12345678901234567890},"function":{"arguments":":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
)

const (
	streamedCallField    = `"extra_content":{"google":{"thought_signature":"CiQB<&>"},"n":12345678901234567890}`
	streamedMessageField = `"reasoning_details":[{"type":"reasoning.text","text":"Let me"},{"type":"reasoning.text","text":" check."}]`
)

// sentBack runs the turn after answer, the answer and the tool's result appended, and returns the
// body of the request.
func sentBack(t *testing.T, srv *gatewaytest.Server, next func([]*schema.Message) error, answer *schema.Message) string {
	t.Helper()
	history := append(question("Weather in Paris?"), answer, schema.ToolMessage("sunny", "call_1"))
	if err := next(history); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	return string(reqs[len(reqs)-1].Body)
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
// model go back, as they came, when the answer is part of the next turn's history, after Generate
// and after Stream with eino's ConcatMessages.
func TestVendorFieldsGoBack(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	generate := func(history []*schema.Message) error {
		_, err := m.Generate(context.Background(), history)
		return err
	}
	srv.FailNext(1, rawJSON(vendorAnswer))
	answer, err := m.Generate(context.Background(), question("Weather in Paris?"))
	if err != nil {
		t.Fatal(err)
	}
	requireFields(t, sentBack(t, srv, generate, answer), messageField, callField)

	// A message stored as JSON, as eino's checkpoints keep it, and read back.
	stored, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var restored schema.Message
	if err := json.Unmarshal(stored, &restored); err != nil {
		t.Fatal(err)
	}
	srv.FailNext(1, rawJSON(vendorAnswer))
	requireFields(t, sentBack(t, srv, generate, &restored), messageField, callField)

	srv.FailNext(1, vendorStream)
	streamedAnswer, _ := streamed(t, m, question("Weather in Paris?"))
	requireFields(t, sentBack(t, srv, generate, streamedAnswer), streamedMessageField, streamedCallField)
}

// TestVendorFieldsRefusedBeforeSending: an Extra entry that is not a JSON object's text is a
// *infergate.ValidationError, and nothing is sent.
func TestVendorFieldsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	for _, extra := range []map[string]any{
		{einoinfergate.ExtraFields: "not JSON"},
		{einoinfergate.ExtraFields: `{"content":"sent twice"}`},
		{einoinfergate.ExtraToolCallFields: `{"0":[1]}`},
	} {
		msg := &schema.Message{Role: schema.Assistant, Extra: extra,
			ToolCalls: []schema.ToolCall{{ID: "c", Function: schema.FunctionCall{Name: "f", Arguments: "{}"}}}}
		_, err := m.Generate(context.Background(), append(question("q"), msg))
		var v *infergate.ValidationError
		if !errors.As(err, &v) {
			t.Errorf("%v: %v, want a *infergate.ValidationError", extra, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
