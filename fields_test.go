package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestVendorFieldsOnEveryPath reads the vendor fields through each way an answer is decoded: the
// one-pass decoders and encoding/json (which answers with content parts or a name go through), in
// whole answers, in chunks, and with json.Unmarshal. Each keeps the values' text; null is left out,
// and so is a key that names a modelled field in another spelling.
func TestVendorFieldsOnEveryPath(t *testing.T) {
	t.Parallel()
	odd := `"audio":null,"annotations":[],"Reasoning_Content":"r",`
	parts := strings.Replace(vendorAnswer, `"content":null,`, odd+`"content":[{"type":"text","text":"Hi"}],`, 1)
	named := strings.Replace(vendorAnswer, `"content":null,`, odd+`"name":"bot",`, 1)
	check := func(t *testing.T, m infergate.Message) {
		t.Helper()
		if got := string(m.Extra["reasoning_details"]); got != openRouterValue {
			t.Errorf("message's reasoning_details = %s, want %s", got, openRouterValue)
		}
		if len(m.ToolCalls) != 1 || string(m.ToolCalls[0].Extra["extra_content"]) != geminiCallValue {
			t.Errorf("tool calls = %+v, want one with extra_content %s", m.ToolCalls, geminiCallValue)
		}
		for k := range m.Extra {
			if k != "reasoning_details" && k != "annotations" {
				t.Errorf("message's Extra has %q", k)
			}
		}
	}
	for name, body := range map[string]string{"one pass": vendorAnswer, "content parts": parts, "name": named} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			client, _ := fieldsClient(t, body)
			c, err := client.Chat.Create(context.Background(), weatherRequest())
			if err != nil {
				t.Fatal(err)
			}
			check(t, c.Message())
			var whole infergate.ChatCompletion
			if err := json.Unmarshal([]byte(body), &whole); err != nil {
				t.Fatal(err)
			}
			check(t, whole.Message())
			// A whole answer where a stream was asked for is the stream's one chunk.
			s, err := client.Chat.Stream(context.Background(), weatherRequest())
			if err != nil {
				t.Fatal(err)
			}
			for s.Next() {
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			check(t, s.Completion().Message())
			if body != vendorAnswer && string(c.Message().Extra["annotations"]) != "[]" {
				t.Errorf("annotations = %s, want []", c.Message().Extra["annotations"])
			}
			// The same message as one chunk's delta, through the fast decoder or past it.
			msg := body[strings.Index(body, `"message":`)+len(`"message":`) : strings.LastIndex(body, `,"finish_reason"`)]
			msg = strings.Replace(msg, `"tool_calls":[{`, `"tool_calls":[{"index":0,`, 1)
			chunk := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + msg + `}]}`
			client, _ = fieldsClient(t, sseBody(chunk))
			s, err = client.Chat.Stream(context.Background(), weatherRequest())
			if err != nil {
				t.Fatal(err)
			}
			for s.Next() {
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			check(t, s.Completion().Message())
		})
	}
}

// TestRawFieldsJSON: RawFields read and write each value's text as it is.
func TestRawFieldsJSON(t *testing.T) {
	t.Parallel()
	var f infergate.RawFields
	in := `{ "b" : {"z":1, "a":"<&>\u00e9"}, "a":[1, 2], "gone":null, "n":1e400 }`
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	// encoding/json escapes HTML characters in what MarshalJSON returns; MarshalJSON itself does not.
	direct, _ := f.MarshalJSON()
	if want := `{"a":[1, 2],"b":{"z":1, "a":"<&>\u00e9"},"n":1e400}`; string(direct) != want {
		t.Errorf("MarshalJSON = %s, want %s", direct, want)
	}
	if !sameJSON(string(out), string(direct)) {
		t.Errorf("json.Marshal = %s, MarshalJSON = %s", out, direct)
	}
	for _, bad := range []string{`[1]`, `"x"`, `{"a":}`} {
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s: read as %v", bad, f)
		}
	}
	if err := json.Unmarshal([]byte(`null`), &f); err != nil || f != nil {
		t.Errorf("null: %v, %v", f, err)
	}
	if _, err := (infergate.RawFields{"a": json.RawMessage(`{`)}).MarshalJSON(); err == nil {
		t.Error("a value that is not JSON was written")
	}
}

// TestExtraRefusedBeforeSending: fields that cannot be sent as they are (a key of a modelled
// field in any spelling, an empty key, a value that is not JSON) are a *ValidationError, and
// nothing is sent.
func TestExtraRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		msg   infergate.Message
		field string
	}{
		{infergate.Message{Role: "user", Content: "x", Extra: infergate.RawFields{"content": json.RawMessage(`"y"`)}}, `Messages[0].Extra["content"]`},
		{infergate.Message{Role: "user", Extra: infergate.RawFields{"Reasoning-Content": json.RawMessage(`"y"`)}}, `Messages[0].Extra["Reasoning-Content"]`},
		{infergate.Message{Role: "user", Extra: infergate.RawFields{"": json.RawMessage(`1`)}}, `Messages[0].Extra`},
		{infergate.Message{Role: "user", Extra: infergate.RawFields{"x": json.RawMessage(`{`)}}, `Messages[0].Extra["x"]`},
		{infergate.Message{Role: "assistant", ToolCalls: []infergate.ToolCall{{ID: "c", Type: "function",
			Extra: infergate.RawFields{"index": json.RawMessage(`0`)}}}}, `Messages[0].ToolCalls[0].Extra["index"]`},
		{infergate.Message{Role: "assistant", ToolCalls: []infergate.ToolCall{{ID: "c", Type: "function",
			Extra: infergate.RawFields{"sig": nil}}}}, `Messages[0].ToolCalls[0].Extra["sig"]`},
	} {
		client, sent := fieldsClient(t, completionBody("x"))
		_, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Messages: []infergate.Message{c.msg}})
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field {
			t.Errorf("%+v: err = %v, want a *ValidationError of %s", c.msg, err, c.field)
		}
		if sent.request(0) != "" {
			t.Errorf("%+v: sent %s", c.msg, sent.request(0))
		}
	}
	// Fields of one's own go out as they are.
	client, sent := fieldsClient(t, completionBody("x"))
	msg := infergate.UserMessage("hi")
	msg.Extra = infergate.RawFields{"cache_control": json.RawMessage(`{"type":"ephemeral"}`)}
	if _, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Messages: []infergate.Message{msg}}); err != nil {
		t.Fatal(err)
	}
	if err := hasFields(sent.request(0), `{"role":"user","content":"hi","cache_control":{"type":"ephemeral"}}`); err != nil {
		t.Error(err)
	}
}

// TestChunkMarshalKeepsFields: a chunk marshals back to the wire's JSON with its fields, so that a
// proxy forwards them.
func TestChunkMarshalKeepsFields(t *testing.T) {
	t.Parallel()
	in := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_details":[{"text":"a"}],"tool_calls":[{"index":0,"extra_content":{"google":{"thought_signature":"c2ln"}},"function":{"arguments":"{}"}}]}}]}`
	var chunk infergate.ChatCompletionChunk
	if err := json.Unmarshal([]byte(in), &chunk); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(chunk)
	if err != nil {
		t.Fatal(err)
	}
	var again infergate.ChatCompletionChunk
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(chunk, again); diff != "" || !strings.Contains(string(out), `"reasoning_details":[{"text":"a"}]`) ||
		!strings.Contains(string(out), `"extra_content":{"google":{"thought_signature":"c2ln"}}`) {
		t.Errorf("marshalled as %s; read back (-before +after):\n%s", out, diff)
	}
}

func TestExtraFieldsAreMerged(t *testing.T) {
	t.Parallel()
	client, mock := mockClient(t)
	seen := captureCalls(mock, http.MethodPost, chatURL, 200, okCompletion, nil)
	req := hello()
	req.Extra = map[string]any{"seed": 7, "response_format": map[string]any{"type": "json_object"}, "top_k": 40}
	req.Messages = append(req.Messages, infergate.Message{Role: "developer", Content: "be terse"},
		infergate.UserMessageParts(infergate.ImageURLPart("http://example.com/cat.png")))
	req.Tools = []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f"}}}
	if _, err := client.Chat.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := (*seen)[0].body
	if body["seed"] != 7.0 || body["top_k"] != 40.0 || body["response_format"].(map[string]any)["type"] != "json_object" || body["model"] != "llama-3.3-70b" {
		t.Errorf("body = %v", body)
	}
	msgs := body["messages"].([]any)
	if msgs[1].(map[string]any)["role"] != "developer" {
		t.Errorf("the developer role was not sent: %v", msgs[1])
	}
	if tool := body["tools"].([]any)[0].(map[string]any); tool["type"] != "function" {
		t.Errorf("a tool without Type was sent as %v", tool)
	}
	for _, key := range []string{"temperature", "messages", "stream"} {
		req.Extra = map[string]any{key: 1}
		_, err := client.Chat.Create(context.Background(), req)
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) || ve.Field != "Extra" {
			t.Errorf("Extra[%q]: %v, want a ValidationError", key, err)
		}
	}
	req.Extra = map[string]any{"bad": func() {}}
	if _, err := client.Chat.Create(context.Background(), req); err == nil || len(*seen) != 1 {
		t.Errorf("an unencodable extra value: %v", err)
	}
}

func TestExtraOnEmbeddingsAndSpeech(t *testing.T) {
	t.Parallel()
	client, mock := mockClient(t)
	emb := captureCalls(mock, http.MethodPost, "https://gw.test/api/v1/embeddings", 200,
		`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`, nil)
	if _, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: []string{"a"}, Extra: map[string]any{"truncate": "END"}}); err != nil {
		t.Fatal(err)
	}
	if (*emb)[0].body["truncate"] != "END" || (*emb)[0].body["encoding_format"] != "base64" {
		t.Errorf("embeddings body = %v", (*emb)[0].body)
	}
	_, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: []string{"a"}, Extra: map[string]any{"input": "b"}})
	var ve *infergate.ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("a modelled key in embeddings Extra: %v", err)
	}
	_, err = client.Audio.Speak(context.Background(), infergate.SpeechRequest{Input: "hi", Extra: map[string]any{"voice": "x"}})
	if !errors.As(err, &ve) {
		t.Errorf("a modelled key in speech Extra: %v", err)
	}
}
