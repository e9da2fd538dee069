package infergate

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// FuzzAppendMessage checks a whole message the same way, every field set from the fuzzer.
func FuzzAppendMessage(f *testing.F) {
	f.Add("user", "hi", "", "", "", "", "", false)
	f.Add("assistant", "x\"y", "bob", "call_1", "{\"a\":1}", "no", "thinking\n", true)
	f.Fuzz(func(t *testing.T, role, content, name, id, args, refusal, reasoning string, parts bool) {
		m := Message{Role: Role(role), Content: content, Name: name, Refusal: refusal, Reasoning: reasoning, ToolCallID: id}
		if id != "" {
			m.ToolCalls = []ToolCall{{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: args}}}
		}
		if parts {
			m.Parts = []ContentPart{TextPart(content), ImageURLPart("https://example.com/" + name)}
		}
		got, err := appendMessage(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s is not JSON: %v", got, err)
		}
		want := map[string]any{"role": role, "content": content}
		decode := func(v any) any { b, _ := json.Marshal(v); var out any; _ = json.Unmarshal(b, &out); return out }
		want["role"], want["content"] = decode(role), decode(content)
		if parts {
			want["content"] = decode(m.Parts)
		}
		for k, v := range map[string]string{"name": name, "tool_call_id": id, "refusal": refusal, "reasoning_content": reasoning} {
			if v != "" {
				want[k] = decode(v)
			}
		}
		if id != "" {
			want["tool_calls"] = decode(m.ToolCalls)
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("appendMessage = %s\nwant %v", got, want)
		}
	})
}

// referenceChatBody is the body encoding/json writes for req: what renderChat must match.
func referenceChatBody(t *testing.T, c *config, req ChatRequest, stream bool) []byte {
	t.Helper()
	if req.SessionID == "" {
		req.SessionID = c.sessionID
	}
	body, err := json.Marshal(wireChatRequest{ChatRequest: &req, Stream: stream})
	if err != nil {
		t.Fatal(err)
	}
	if body, err = mergeExtra(body, req.Extra); err != nil {
		t.Fatal(err)
	}
	return body
}

// decodeNumbers decodes a JSON document with its numbers as written, so that two documents compare
// equal only when they spell every number the same way.
func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s is not JSON: %v", b, err)
	}
	return v
}

func checkChatBody(t *testing.T, c *config, req ChatRequest, stream bool) {
	t.Helper()
	got, err := c.renderChat(&req, 0, stream)
	if err != nil {
		t.Fatal(err)
	}
	want := referenceChatBody(t, c, req, stream)
	if !reflect.DeepEqual(decodeNumbers(t, got), decodeNumbers(t, want)) {
		t.Fatalf("renderChat wrote\n%s\nencoding/json writes\n%s", got, want)
	}
}

// TestRenderChatAgreesWithEncodingJSON builds random requests, every field set or not, and holds the
// body renderChat writes to the one encoding/json writes for the same request.
func TestRenderChatAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20261126, 2))
	floats := []float64{0, math.Copysign(0, -1), 0.1, 0.2, 1, 1.5, 2, -2, 1e-6, 9.99e-7, 1e-7, 1.25e-10, 1e20, 1e21, 123456.789, 1.9999999999999998, 5e-324}
	texts := []string{"", "m", "llama-3.3-70b", "<b>&amp;</b>", "quote \" and \\", "é日本🙂", "\u2028", "\xff bad", "\n\t"}
	pick := func() string { return texts[rng.IntN(len(texts))] }
	maybeFloat := func() *float64 {
		if rng.IntN(2) == 0 {
			return nil
		}
		return Ptr(floats[rng.IntN(len(floats))])
	}
	maybeInt := func() *int {
		if rng.IntN(2) == 0 {
			return nil
		}
		return Ptr([]int{0, 1, -1, 512, math.MaxInt32, math.MinInt64}[rng.IntN(6)])
	}
	for range 500 {
		c := &config{}
		if rng.IntN(3) == 0 {
			c.sessionID = "client-session"
		}
		req := ChatRequest{Model: pick(), Messages: []Message{UserMessage(pick())}, Temperature: maybeFloat(), TopP: maybeFloat(),
			N: maybeInt(), MaxTokens: maybeInt(), PresencePenalty: maybeFloat(), FrequencyPenalty: maybeFloat(), SessionID: pick()}
		for range rng.IntN(3) {
			req.Stop = append(req.Stop, pick())
		}
		switch rng.IntN(4) {
		case 0:
			req.Tools = []Tool{functionTool("weather", pick(), map[string]any{"type": "object"})}
			req.ToolChoice = ToolChoiceFunction("weather")
		case 1:
			req.ToolChoice = ToolChoiceRequired
		}
		if rng.IntN(3) == 0 {
			req.Extra = map[string]any{"seed": 7, "user": pick()}
		}
		checkChatBody(t, c, req, rng.IntN(2) == 0)
	}
}

func TestRenderChatRefusesNonFiniteNumbers(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		req := ChatRequest{Messages: []Message{UserMessage("hi")}, TopP: Ptr(f)}
		if body, err := new(config).renderChat(&req, 0, false); err == nil {
			t.Errorf("top_p %v: wrote %s, want an error", f, body)
		}
	}
}

// FuzzRenderChat holds renderChat to encoding/json on the fields a fuzzer can set.
func FuzzRenderChat(f *testing.F) {
	f.Add("m", 0.7, 1e-7, 512, "stop", "session", true)
	f.Add("", -0.0, 1e21, -1, "<&>", "", false)
	f.Fuzz(func(t *testing.T, model string, temperature, topP float64, maxTokens int, stop, session string, stream bool) {
		req := ChatRequest{Model: model, Messages: []Message{UserMessage(stop)}, Temperature: &temperature, TopP: &topP,
			MaxTokens: &maxTokens, Stop: []string{stop}, SessionID: session}
		if finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }; !finite(temperature) || !finite(topP) {
			if body, err := new(config).renderChat(&req, 0, stream); err == nil {
				t.Fatalf("wrote %s for a number JSON cannot hold, want an error", body)
			}
			return
		}
		checkChatBody(t, new(config), req, stream)
	})
}
