package temporalinfergate_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/temporalinfergate"
)

// A request's Extra fields survive the JSON of an activity's input to the byte, numbers beyond
// float64 and the order of an object's keys included; a value JSON cannot encode is refused.
func TestChatInputKeepsExtra(t *testing.T) {
	t.Parallel()
	req := question("hi")
	req.Extra = map[string]any{
		"seed":            json.Number("123456789012345678901234567890"),
		"response_format": json.RawMessage(`{"type":"json_schema","z":1,"a":2}`),
		"user":            "ann",
		"logit_bias":      map[string]int{"50256": -100},
	}
	in, err := temporalinfergate.NewChatInput(req)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back temporalinfergate.ChatInput
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got := back.ChatRequest()
	if len(got.Extra) != len(req.Extra) {
		t.Fatalf("Extra %v", got.Extra)
	}
	for k, v := range req.Extra {
		want, _ := json.Marshal(v)
		if raw, ok := got.Extra[k].(json.RawMessage); !ok || string(raw) != string(want) {
			t.Errorf("Extra[%s] = %s, want %s", k, got.Extra[k], want)
		}
	}
	if in.Request.Extra != nil || got.Messages[0].Text() != "hi" {
		t.Errorf("input %+v", in)
	}
	req.Extra = map[string]any{"bad": math.Inf(1)}
	var invalid *infergate.ValidationError
	if _, err := temporalinfergate.NewChatInput(req); !errors.As(err, &invalid) {
		t.Errorf("an Inf in Extra: err = %v", err)
	}
	if _, err := temporalinfergate.NewEmbeddingsInput(infergate.EmbeddingRequest{Input: []string{"x"}, Extra: map[string]any{"bad": math.NaN()}}); !errors.As(err, &invalid) {
		t.Errorf("a NaN in Extra: err = %v", err)
	}
}

// NewChatInput runs in workflow code (Chat, RunTools), where the same input must give the same
// error on every replay: of several values JSON cannot encode, the first key in order is named.
func TestChatInputNamesTheFirstBadExtraField(t *testing.T) {
	t.Parallel()
	req := question("hi")
	req.Extra = map[string]any{"a": 1}
	for _, k := range []string{"m", "c", "x", "e", "q", "g", "t", "d"} {
		req.Extra[k] = math.Inf(1)
	}
	for range 50 {
		var invalid *infergate.ValidationError
		if _, err := temporalinfergate.NewChatInput(req); !errors.As(err, &invalid) || invalid.Field != "ChatRequest.Extra[c]" {
			t.Fatalf("err = %v, want ChatRequest.Extra[c] named", err)
		}
	}
}
