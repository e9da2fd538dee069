package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// refCompletion is a completion as encoding/json reads it into plain types.
type refCompletion struct {
	ID                *string         `json:"id"`
	Object            *string         `json:"object"`
	Created           *int64          `json:"created"`
	Model             *string         `json:"model"`
	SystemFingerprint *string         `json:"system_fingerprint"`
	Usage             json.RawMessage `json:"usage"`
	UsageFromProvider json.RawMessage `json:"usage_from_provider"`
	UsageFromConsumer json.RawMessage `json:"usage_from_consumer"`
	// Error and Success are the keys of a failure reported with a successful status, which
	// Envelope must report whenever encoding/json reads one.
	Error   json.RawMessage `json:"error"`
	Success json.RawMessage `json:"success"`
	Choices []struct {
		Index        *int64          `json:"index"`
		Message      refMessage      `json:"message"`
		FinishReason *string         `json:"finish_reason"`
		Logprobs     json.RawMessage `json:"logprobs"`
	} `json:"choices"`
}

type refMessage struct {
	Role             *string             `json:"role"`
	Content          *string             `json:"content"`
	ReasoningContent *string             `json:"reasoning_content"`
	Reasoning        *string             `json:"reasoning"`
	Refusal          *string             `json:"refusal"`
	ToolCalls        []refCompletionCall `json:"-"`
	extra            []Field
}

func (m *refMessage) UnmarshalJSON(b []byte) error {
	type plain refMessage
	var w struct {
		plain
		ToolCalls []refCompletionCall `json:"tool_calls"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = refMessage(w.plain)
	m.ToolCalls = w.ToolCalls
	var err error
	m.extra, err = refFieldList(b, messageKeys)
	return err
}

type refCompletionCall struct {
	ID       *string `json:"id"`
	Type     *string `json:"type"`
	Function struct {
		Name      *string `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
	extra []Field
}

func (c *refCompletionCall) UnmarshalJSON(b []byte) error {
	type plain refCompletionCall
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	var err error
	c.extra, err = refFieldList(b, callKeys)
	return err
}

// refFieldList is refFields as the fields a decoder hands over.
func refFieldList(b []byte, known []string) ([]Field, error) {
	flat, err := refFields(b, known)
	var out []Field
	for i := 0; i+1 < len(flat); i += 2 {
		out = append(out, Field{Key: []byte(flat[i]), Value: []byte(flat[i+1])})
	}
	return out, err
}

// completion turns the reference into DecodeCompletion's result.
func (r *refCompletion) completion() Completion {
	text := deref[string]
	raw := func(b json.RawMessage) []byte {
		if s := compactRaw(b); s != "" {
			return []byte(s)
		}
		return nil
	}
	c := Completion{ID: text(r.ID), Object: text(r.Object), Model: text(r.Model), SystemFingerprint: text(r.SystemFingerprint),
		Created: deref(r.Created), Usage: raw(r.Usage), UsageFromProvider: raw(r.UsageFromProvider), UsageFromConsumer: raw(r.UsageFromConsumer)}
	for _, ch := range r.Choices {
		m := ch.Message
		c.Choices = append(c.Choices, CompletionChoice{Index: deref(ch.Index), Role: text(m.Role), Content: text(m.Content),
			ContentSet: m.Content != nil, Reasoning1: text(m.ReasoningContent), Reasoning2: text(m.Reasoning),
			Refusal: text(m.Refusal), FinishReason: text(ch.FinishReason), Logprobs: raw(ch.Logprobs), Extra: m.extra})
		if m.ToolCalls != nil {
			calls := []CompletionCall{}
			for _, tc := range m.ToolCalls {
				calls = append(calls, CompletionCall{ID: text(tc.ID), Type: text(tc.Type), Name: text(tc.Function.Name),
					Arguments: text(tc.Function.Arguments), Extra: tc.extra})
			}
			c.Choices[len(c.Choices)-1].ToolCalls = calls
		}
	}
	return c
}

// compactCompletion compacts the raw values of a decoded completion, to compare with the reference.
func compactCompletion(c Completion) Completion {
	raw := func(b []byte) []byte {
		if s := compactRaw(b); s != "" {
			return []byte(s)
		}
		return nil
	}
	c.Usage, c.UsageFromProvider, c.UsageFromConsumer = raw(c.Usage), raw(c.UsageFromProvider), raw(c.UsageFromConsumer)
	fields := func(list []Field) []Field {
		var out []Field
		for _, f := range list {
			out = append(out, Field{Key: f.Key, Value: []byte(compactValue(f.Value))})
		}
		return out
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		ch.Logprobs, ch.Extra = raw(ch.Logprobs), fields(ch.Extra)
		for j := range ch.ToolCalls {
			ch.ToolCalls[j].Extra = fields(ch.ToolCalls[j].Extra)
		}
	}
	return c
}

// checkCompletion reports how DecodeCompletion and encoding/json differ on b, when the decoder
// accepts it, and whether it missed a top-level key encoding/json reads as "error" or "success".
func checkCompletion(b []byte) (declined bool, diff string) {
	got, ok := DecodeCompletion(b)
	if !ok {
		return true, ""
	}
	var ref refCompletion
	if err := json.Unmarshal(b, &ref); err != nil {
		return false, "accepted, but encoding/json refuses it: " + err.Error()
	}
	if !got.Envelope && (ref.Error != nil || ref.Success != nil) {
		return false, fmt.Sprintf("no envelope reported, encoding/json reads error %s and success %s", ref.Error, ref.Success)
	}
	want := ref.completion()
	want.Envelope = got.Envelope
	return false, diffOf(want, compactCompletion(got))
}

var completionSeeds = []string{
	`{"id":"c","object":"chat.completion","created":5,"model":"m","system_fingerprint":null,"choices":[{"index":0,"message":{"role":"assistant","content":"Hi \"there\"\n\u00e9","refusal":null,"reasoning_content":"r"},"logprobs":null,"finish_reason":"stop","content_filter_results":{"hate":{"filtered":false}}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"completion_tokens_details":{"reasoning_tokens":1}},"usage_from_provider":null}`,
	`{"choices":[{"message":{"content":null,"reasoning":"x"},"logprobs":{"content":[{"token":"a","logprob":-1,"bytes":[97],"top_logprobs":[]}]}}],"prompt_filter_results":[1,{"a":null}]}`,
	`{"choices":[]}`,
	`{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"note\":\"\\u00e9\"}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":null},"extra":[1]}]},"finish_reason":"tool_calls"}]}`,
	`{"error":{"message":"quota exhausted"},"choices":[]}`,
	`{"id":"c","Success":false,"ERROR":null,"\u0065rror":"x","succeſs":true}`,
	`{"choices":[{"message":{"role":"assistant","reasoning_details": [{"type":"reasoning.text","text":"<\u00e9>"}],"tool_calls":[{"extra_content":{"google":{"thought_signature":"c2ln"}},"index":"0","x":null,"function":{"name":"f","arguments":"{}"},"id":"c"}],"annotations":[],"audio":null}}]}`,
}

func TestDecodeCompletion(t *testing.T) {
	t.Parallel()
	checkCases(t, checkCompletion, []decodeCase{
		{completionSeeds[0], false},
		{completionSeeds[1], false},
		{completionSeeds[2], false},
		{` {"id":"c"} `, false},
		{`{"choices":[{"message":{"content":[{"type":"text","text":"parts"}]}}]}`, true},
		{completionSeeds[3], false},
		{completionSeeds[4], false},
		{`{"choices":[{"message":{"Reasoning_Details":[],"reasoning-content":"r"}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[{"Index":0}]}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[]}}]}`, false},
		{`{"choices":[{"message":{"tool_calls":null}}]}`, false},
		{`{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[{"function":null}]}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[null]}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[{"Function":{"name":"f"}}]}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[{"id":"a","id":"b"}]}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{}","arguments":"{}"}}]}}]}`, true},
		{`{"choices":[{"message":{"tool_calls":[],"tool_calls":[]}}]}`, true},
		{`{"choices":[{"message":{"name":"bob"}}]}`, true},
		{`{"choices":[{"message":null}]}`, true},
		{`{"id":"a","id":"b"}`, true},
		{`{"ID":"case"}`, true},
		{`{"created":1.5}`, true},
		{`{"id":"c"} x`, true},
		{`[]`, true},
	})
}

// TestDecodeCompletionEnvelope reports the top-level keys encoding/json may read as "error" or
// "success", however they are spelt, and no others: not the keys of a message or a call.
func TestDecodeCompletionEnvelope(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		`{"id":"c","choices":[]}`: false,
		`{"error":null}`:          true, `{"Error":"x"}`: true, `{"ERROR":{}}`: true, `{"err_or":1}`: true,
		`{"\u0065rror":1}`: true, `{"success":false}`: true, `{"SUCCESS":true}`: true,
		`{"succeſs":false}`: true, `{"errors":[]}`: false, `{"erro":1}`: false, `{"message":"x"}`: false,
		`{"choices":[{"message":{"error":"x","success":false}}]}`:                                    false,
		`{"choices":[{"message":{"tool_calls":[{"error":"x","function":{"name":"f"}}]},"error":1}]}`: false,
		`{"id":"error","model":"success","detail":"error"}`:                                          false,
	} {
		c, ok := DecodeCompletion([]byte(body))
		if !ok || c.Envelope != want {
			t.Errorf("%s: Envelope %v (accepted %v), want %v", body, c.Envelope, ok, want)
		}
	}
}

// FuzzDecodeCompletion holds DecodeCompletion to encoding/json: whatever it accepts, encoding/json
// reads the same way.
func FuzzDecodeCompletion(f *testing.F) {
	for _, seed := range completionSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if _, diff := checkCompletion([]byte(body)); diff != "" {
			t.Fatalf("%q: differs from encoding/json (-json +decoder):\n%s", body, diff)
		}
	})
}

// completionBody is an answer of about size bytes of text with an escape every twenty bytes or so,
// shaped like a provider's.
func completionBody(size int) []byte {
	var text strings.Builder
	for i := 0; text.Len() < size; i++ {
		fmt.Fprintf(&text, "Paragraph %d says \"hello\" to the reader and goes on for a while.\n", i)
	}
	content, _ := json.Marshal(text.String())
	return fmt.Appendf(nil, `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion","created":1731000000,"model":"llama-3.3-70b","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":11000,"total_tokens":11012}}`, content)
}

func BenchmarkDecodeCompletion50KB(b *testing.B) {
	body := completionBody(50_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := DecodeCompletion(body); !ok {
			b.Fatal("declined")
		}
	}
}

// toolCallBody is an answer whose one tool call carries about size bytes of JSON arguments:
// records whose strings hold quotes and backslashes, so that the arguments escape a byte in five.
func toolCallBody(size int) []byte {
	quoted, _ := json.Marshal(toolCallArguments(size))
	return fmt.Appendf(nil, `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion","created":1731000000,"model":"llama-3.3-70b","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"call_7Xk2","type":"function","function":{"name":"answer","arguments":%s}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":12000,"total_tokens":12012}}`, quoted)
}

// toolCallArguments is the JSON of about size bytes that toolCallBody's call carries.
func toolCallArguments(size int) string {
	var args strings.Builder
	args.WriteString(`{"items":[`)
	for i := 0; args.Len() < size; i++ {
		if i > 0 {
			args.WriteByte(',')
		}
		fmt.Fprintf(&args, `{"label":"record number %d of the set","score":%g,"tags":["alpha","beta"],"note":"note %d: see \\ the \"appendix\""}`, i, float64(i)/3, i)
	}
	args.WriteString(`]}`)
	return args.String()
}

func BenchmarkDecodeToolCall50KB(b *testing.B) {
	body := toolCallBody(50_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := DecodeCompletion(body); !ok {
			b.Fatal("declined")
		}
	}
}
