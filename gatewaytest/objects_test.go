package gatewaytest_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go/gatewaytest"
)

func forcedRequest(params any) map[string]any {
	return map[string]any{
		"messages":    []any{map[string]any{"role": "user", "content": "a dish"}},
		"tools":       []any{map[string]any{"type": "function", "function": map[string]any{"name": "dish", "parameters": params}}},
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "dish"}},
	}
}

// answer returns the first choice's message of a chat response.
func answer(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var out struct {
		Choices []struct {
			Message      map[string]any `json:"message"`
			FinishReason string         `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &out); err != nil || len(out.Choices) != 1 {
		t.Fatalf("%v: %s", err, body)
	}
	return out.Choices[0].Message
}

func TestForcedCallAnsweredFromTheSchema(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"name":   map[string]any{"type": "string"},
		"serves": map[string]any{"type": []any{"integer", "null"}, "minimum": 1},
		"diet":   map[string]any{"type": "string", "enum": []any{"vegan", "any"}},
		"steps":  map[string]any{"type": []any{"null", "array"}, "items": map[string]any{"type": "string"}, "minItems": 2},
		"ok":     map[string]any{"type": "boolean"},
		"tags":   map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}},
		"any":    true,
	}}
	_, body := send(t, s, "POST", "/chat/completions", forcedRequest(schema))
	calls := answer(t, body)["tool_calls"].([]any)
	fn := calls[0].(map[string]any)["function"].(map[string]any)
	var args map[string]any
	if err := json.Unmarshal([]byte(fn["arguments"].(string)), &args); err != nil || fn["name"] != "dish" {
		t.Fatalf("%v: %v", err, fn)
	}
	want := map[string]any{"name": "example", "serves": 1.0, "diet": "vegan", "steps": []any{"example", "example"},
		"ok": false, "tags": map[string]any{}, "any": nil}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Fatalf("arguments (-want +got):\n%s", diff)
	}
}

func TestObjectReply(t *testing.T) {
	t.Parallel()
	dish := map[string]any{"name": "Soup"}
	s := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Object: dish}, gatewaytest.Reply{Object: dish}))
	_, body := send(t, s, "POST", "/chat/completions", forcedRequest(map[string]any{"type": "object"}))
	call := answer(t, body)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if call["arguments"] != `{"name":"Soup"}` {
		t.Fatalf("call %v", call)
	}
	// Without a forced function the object is the text, as a model asked for JSON writes it.
	_, body = send(t, s, "POST", "/chat/completions", map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": "a dish"}}})
	if msg := answer(t, body); msg["content"] != `{"name":"Soup"}` || msg["tool_calls"] != nil {
		t.Fatalf("message %v", msg)
	}
}

func TestUnforcedRequestGetsTheDefaultAnswer(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	req := forcedRequest(map[string]any{"type": "object"})
	req["tool_choice"] = "auto"
	_, body := send(t, s, "POST", "/chat/completions", req)
	if msg := answer(t, body); msg["content"] != gatewaytest.DefaultAnswer("a dish") {
		t.Fatalf("message %v", msg)
	}
}

func TestSampleFromSchemaOfNonsense(t *testing.T) {
	t.Parallel()
	for _, schema := range []any{nil, "x", 3.0, map[string]any{"type": 7}, map[string]any{"enum": []any{}}, map[string]any{"type": []any{"null"}}} {
		if got := gatewaytest.SampleFromSchema(schema); got != nil {
			t.Errorf("%v: %v, want nil", schema, got)
		}
	}
	if got := gatewaytest.SampleFromSchema(map[string]any{"type": "number", "maximum": -3.0}); got != -3.0 {
		t.Errorf("negative maximum: %v", got)
	}
}
