package infergate_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	infergate "github.com/infergate/infergate-go"
)

// The vendor fields of the tests, as Gemini's OpenAI-compatible endpoint and OpenRouter send them:
// a thought signature on a tool call and reasoning details on a message. Their text holds what a
// re-encoding would change (escapes, HTML characters, a number no float64 holds, key order, white
// space), so that only the bytes as received pass.
// Each is sent as key, colon, white space and value; what goes back is key, colon and value.
const (
	geminiCallValue  = `{"google":{"thought_signature":"CiQB0e2Kb+7x\/4<&>\u00e9=="}, "n":12345678901234567890}`
	openRouterValue  = `[{"type":"reasoning.text","text":"Let me check <the> \"weather\".","signature":"EqoBCkgIAR\u0041==","format":"anthropic-claude-v1","index":0}]`
	geminiCallField  = `"extra_content":` + geminiCallValue
	openRouterFields = `"reasoning_details":` + openRouterValue
)

// vendorAnswer is a whole answer that calls get_weather, with both vendor fields.
const vendorAnswer = `{"id":"gen-1","object":"chat.completion","created":1731000000,"model":"gemini-2.5-flash","choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning":"Let me check.","reasoning_details": ` + openRouterValue + `,"tool_calls":[{"extra_content": ` + geminiCallValue + `,"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"call_1","type":"function"}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`

// vendorStream is the same answer streamed: the reasoning details come in three fragments, which
// a stream appends, and the call's field in two, whose objects it merges and whose strings it joins.
var vendorStream = sseBody(
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning":"Let me","reasoning_details":[{"type":"reasoning.text","text":"Let me","index":0}]}}]}`,
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning":" check.","reasoning_details":[{"type":"reasoning.text","text":" check.","index":0}]}}]}`,
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","signature":"EqoB\u0041==","index":0}],"tool_calls":[{"index":0,"id":"call_1","type":"function","extra_content":{"google":{"thought_signature":"CiQB<&"}},"function":{"name":"get_weather","arguments":"{\"city\""}}]}}]}`,
	`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"extra_content":{"google":{"thought_signature":"\/4=="},"n":12345678901234567890},"function":{"arguments":":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
)

// What the streamed answer's fields add up to, in the order their keys first came.
const (
	streamedCallField = `"extra_content":{"google":{"thought_signature":"CiQB<&\/4=="},"n":12345678901234567890}`
	streamedFields    = `"reasoning_details":[{"type":"reasoning.text","text":"Let me","index":0},{"type":"reasoning.text","text":" check.","index":0},{"type":"reasoning.text","signature":"EqoB\u0041==","index":0}]`
)

func sseBody(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	return b.String() + "data: [DONE]\n\n"
}

// bodies records each request's body, and answers request i with answers[i] (the last one
// after that), as JSON or, when it starts with "data:", as an event stream.
type bodies struct {
	mu      sync.Mutex
	sent    []string
	answers []string
}

func (b *bodies) RoundTrip(r *http.Request) (*http.Response, error) {
	raw, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.sent = append(b.sent, string(raw))
	answer := b.answers[min(len(b.sent), len(b.answers))-1]
	b.mu.Unlock()
	ct := "application/json"
	if strings.HasPrefix(answer, "data:") {
		ct = "text/event-stream"
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {ct}},
		Body: io.NopCloser(strings.NewReader(answer)), Request: r}, nil
}

func (b *bodies) request(i int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i >= len(b.sent) {
		return ""
	}
	return b.sent[i]
}

func fieldsClient(t *testing.T, answers ...string) (*infergate.Client, *bodies) {
	t.Helper()
	b := &bodies{answers: answers}
	return testClient(t, "https://gw.test", infergate.WithHTTPClient(&http.Client{Transport: b})), b
}

// hasFields reports what of want the body lacks, byte for byte.
func hasFields(body string, want ...string) error {
	for _, w := range want {
		if !strings.Contains(body, w) {
			return fmt.Errorf("the request lacks %s:\n%s", w, body)
		}
	}
	return nil
}

func weatherRequest() infergate.ChatRequest {
	return infergate.ChatRequest{Model: "gemini-2.5-flash", Messages: []infergate.Message{infergate.UserMessage("Weather in Paris?")}}
}

// TestVendorFieldsGoBackAfterCreate: an answer's message appended to the next request sends the
// fields the SDK does not model back as they came.
func TestVendorFieldsGoBackAfterCreate(t *testing.T) {
	t.Parallel()
	client, sent := fieldsClient(t, vendorAnswer, completionBody("Sunny."))
	ctx := context.Background()
	req := weatherRequest()
	answer, err := client.Chat.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, answer.Message(), infergate.ToolResultMessage("call_1", "sunny"))
	if _, err := client.Chat.Create(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := hasFields(sent.request(1), openRouterFields, geminiCallField); err != nil {
		t.Fatal(err)
	}
}

// TestVendorFieldsGoBackAfterStream: a streamed answer's fields merge across their fragments and
// go back with its message.
func TestVendorFieldsGoBackAfterStream(t *testing.T) {
	t.Parallel()
	client, sent := fieldsClient(t, vendorStream, completionBody("Sunny."))
	ctx := context.Background()
	req := weatherRequest()
	stream, err := client.Chat.Stream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for stream.Next() {
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, stream.Completion().Message(), infergate.ToolResultMessage("call_1", "sunny"))
	if _, err := client.Chat.Create(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := hasFields(sent.request(1), streamedFields, streamedCallField); err != nil {
		t.Fatal(err)
	}
}

// TestToolLoopSendsVendorFieldsBack: the tool loop's next turn carries the fields of the turn
// that called the tool.
func TestToolLoopSendsVendorFieldsBack(t *testing.T) {
	t.Parallel()
	client, sent := fieldsClient(t, vendorStream, sseBody(`{"id":"gen-2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Sunny."},"finish_reason":"stop"}]}`))
	weather, err := infergate.NewTool("get_weather", "The weather in a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny in " + in.City, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.RunTools(context.Background(), weatherRequest(), infergate.ToolLoop{Tools: []*infergate.FuncTool{weather}}).Wait(); err != nil {
		t.Fatal(err)
	}
	if err := hasFields(sent.request(1), streamedFields, streamedCallField); err != nil {
		t.Fatal(err)
	}
}

// TestObjectRepairSendsVendorFieldsBack: a typed answer's repair turn sends the failed answer back
// with its fields.
func TestObjectRepairSendsVendorFieldsBack(t *testing.T) {
	t.Parallel()
	// The first answer calls the object's function with arguments that miss the field it needs.
	first := strings.Replace(strings.Replace(vendorAnswer, `"name":"get_weather"`, `"name":"forecast"`, 1),
		`{\"city\":\"Paris\"}`, `{\"town\":\"Paris\"}`, 1)
	second := strings.Replace(strings.Replace(first, `"id":"call_1"`, `"id":"call_2"`, 1), `town`, `city`, 1)
	client, sent := fieldsClient(t, first, second)
	type forecast struct {
		City string `json:"city" jsonschema:"the city"`
	}
	obj, err := infergate.GenerateObject[forecast](context.Background(), client.Chat, weatherRequest(),
		infergate.ObjectSpec{Name: "forecast", Mode: infergate.ObjectModeTool})
	if err != nil {
		t.Fatal(err)
	}
	if obj.Attempts != 2 || obj.Value.City != "Paris" {
		t.Fatalf("took %d attempts for %+v, want 2 for Paris", obj.Attempts, obj.Value)
	}
	if err := hasFields(sent.request(1), openRouterFields, geminiCallField); err != nil {
		t.Fatal(err)
	}
}

func completionBody(text string) string {
	return `{"id":"gen-2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"stop"}]}`
}
