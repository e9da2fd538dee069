package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway, and reads the spans and metrics back
// from what it printed.
func TestOutput(t *testing.T) {
	noEnv := func(string) string { return "" } // the fake, whatever the environment holds
	var out bytes.Buffer
	if err := run(context.Background(), &out, noEnv); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()[bytes.IndexByte(out.Bytes(), '\n')+1:]))
	var spans, metrics []string
	parents := map[string]string{} // span name -> parent's span id
	ids := map[string]string{}     // span id -> span name
	for dec.More() {
		var doc struct {
			Name        string
			SpanContext struct{ SpanID string }
			Parent      struct{ SpanID string }
			Scope       struct{ Name string } `json:"InstrumentationScope"`

			ScopeMetrics []struct {
				Metrics []struct{ Name string }
			}
		}
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("output is not the exporters' JSON: %v", err)
		}
		if doc.Name != "" {
			spans = append(spans, doc.Name)
			parents[doc.Name] = doc.Parent.SpanID
			ids[doc.SpanContext.SpanID] = doc.Name
		}
		for _, sm := range doc.ScopeMetrics {
			for _, m := range sm.Metrics {
				metrics = append(metrics, m.Name)
			}
		}
	}
	for _, want := range []string{"chat llama-3.3-70b", "POST", "invoke_agent", "execute_tool get_weather"} {
		if !slices.Contains(spans, want) {
			t.Errorf("no span %q in %v", want, spans)
		}
	}
	if p := ids[parents["execute_tool get_weather"]]; p != "invoke_agent" {
		t.Errorf("execute_tool's parent is %q", p)
	}
	for _, want := range []string{"gen_ai.client.operation.duration", "gen_ai.client.token.usage",
		"gen_ai.client.operation.time_to_first_chunk", "gen_ai.client.operation.time_per_output_chunk"} {
		if !slices.Contains(metrics, want) {
			t.Errorf("no metric %q in %v", want, metrics)
		}
	}
	if regexp.MustCompile(regexp.QuoteMeta(gatewaytest.DefaultAPIKey)).Match(out.Bytes()) {
		t.Error("the API key was printed")
	}
}
