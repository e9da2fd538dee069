package batch_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestBodyReachesTheGatewayAsWritten sends bodies with fields the SDK's types do not model (at the
// top, in messages, in a tool's schema) and finds each at the gateway equal, as JSON, to the line's
// body.
func TestBodyReachesTheGatewayAsWritten(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"vendor": `{"model":"llama-3.3-70b","messages":[{"role":"user","content":"hi","cache_control":{"type":"ephemeral"}},` +
			`{"role":"assistant","content":"yes","reasoning_details":[{"type":"reasoning.text","text":"…"}]},{"role":"user","content":"and?"}],` +
			`"seed":12345678901234567890,"response_format":{"type":"json_object"},"top_k":40,"logit_bias":{"50256":-100},"temperature":0.2,"max_tokens":64,"stop":["x","y"]}`,
		"tools": `{"model":"llama-3.3-70b","messages":[{"role":"user","content":"weather?"}],"tools":[{"type":"function","function":{"name":"weather",` +
			`"description":"the weather","parameters":{"type":"object","properties":{"city":{"type":"string","maxLength":100000000000000000001}},"required":["city"]}}}],"tool_choice":"auto"}`,
		"parts": `{"messages":[{"role":"user","content":[{"type":"text","text":"what is it?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","detail":"low"}}]}]}`,
		"embed": `{"model":"text-embedding-bge-m3","input":["a","b"],"encoding_format":"float","dimensions":8,"user":"u1","vendor_knob":{"x":[1,2]}}`,
	}
	s := gatewaytest.New(t)
	var lines []string
	for id, body := range bodies {
		url := "/v1/chat/completions"
		if id == "embed" {
			url = "/api/v1/embeddings"
		}
		line, _ := json.Marshal(map[string]any{"custom_id": id, "method": "POST", "url": url, "body": json.RawMessage(body)})
		lines = append(lines, string(line))
	}
	in, out := files(t, lines...)
	if _, err := batch.Run(context.Background(), s.Client(), batch.Job{Input: in, Output: out}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range s.Requests() {
		id := ""
		for name, body := range bodies {
			if r.Header.Get("Idempotency-Key") == batch.IdempotencyKey(name, []byte(body)) {
				id = name
			}
		}
		if id == "" {
			t.Fatalf("request %s %s with an unknown key %q", r.Method, r.Path, r.Header.Get("Idempotency-Key"))
		}
		seen[id] = true
		var want, got any
		decode(t, []byte(bodies[id]), &want)
		decode(t, r.Body, &got)
		if id != "embed" {
			delete(got.(map[string]any), "session_id") // the client's provider session
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the gateway got another body (-line +sent):\n%s", id, diff)
		}
	}
	if len(seen) != len(bodies) {
		t.Errorf("requests for %v, want all of %d", seen, len(bodies))
	}
	_ = os.Remove(out)
}

// decode reads JSON keeping numbers as written, so that a rounded number is a difference.
func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytesReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}
