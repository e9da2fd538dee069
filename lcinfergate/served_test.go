package lcinfergate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

// checkServed checks the model and fallbacks a choice's GenerationInfo reports: fallbacks lists the
// models that failed, each with an error that says wantErr.
func checkServed(t *testing.T, path string, info map[string]any, model string, fallbacks []string, wantErr string) {
	t.Helper()
	if info["model"] != model {
		t.Errorf("%s: GenerationInfo[model] = %#v, want %q", path, info["model"], model)
	}
	got, present := info["fallbacks"]
	if len(fallbacks) == 0 {
		if present {
			t.Errorf("%s: GenerationInfo[fallbacks] = %#v, want none", path, got)
		}
		return
	}
	list, ok := got.([]map[string]any)
	if !ok {
		t.Fatalf("%s: GenerationInfo[fallbacks] is %T %#v, want []map[string]any", path, got, got)
	}
	var models []string
	for _, f := range list {
		models = append(models, f["model"].(string))
		if e, _ := f["error"].(string); !strings.Contains(e, wantErr) {
			t.Errorf("%s: fallback %v: error %#v does not say %q", path, f["model"], f["error"], wantErr)
		}
	}
	if d := cmp.Diff(fallbacks, models); d != "" {
		t.Errorf("%s: fallbacks (-want +got):\n%s", path, d)
	}
}

// A model that is down and the fallback that answered for it reach every choice's GenerationInfo,
// whether the answer is streamed, whole, or a JSON-mode object.
func TestGenerationInfoSaysWhichModelServed(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageRetryFailed))
	llm := lcinfergate.New(s.Client(), "llama-3.3-70b", lcinfergate.WithoutRetries(),
		lcinfergate.WithCallOptions(infergate.WithFallbackModels("qwen2.5-vl-72b")))
	for _, c := range []struct {
		name    string
		opts    []llms.CallOption
		wantErr string
	}{
		{"whole", nil, "provider request failed"},
		{"streamed", []llms.CallOption{streaming(new([]string))}, "all providers of the model failed"},
		{"JSON mode", []llms.CallOption{llms.WithJSONMode()}, "provider request failed"},
	} {
		s.Enqueue(gatewaytest.Reply{Content: `{"answer":"from the spare"}`, MoreChoices: []gatewaytest.Reply{{Content: "another"}}})
		opts, choices := c.opts, 1
		if c.name != "JSON mode" {
			opts, choices = append(opts, llms.WithN(2)), 2
		}
		resp := generate(t, llm, []llms.MessageContent{human("hi")}, opts...)
		if len(resp.Choices) != choices {
			t.Fatalf("%s: %d choices, want %d", c.name, len(resp.Choices), choices)
		}
		for i, choice := range resp.Choices {
			checkServed(t, fmt.Sprintf("%s choice %d", c.name, i), choice.GenerationInfo, "qwen2.5-vl-72b", []string{"llama-3.3-70b"}, c.wantErr)
		}
	}
}

// An answer the first model gave names it, and no fallbacks.
func TestGenerationInfoSaysModelWithoutFallback(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	llm := lcinfergate.New(s.Client(), "")
	for _, opts := range [][]llms.CallOption{nil, {streaming(new([]string))}} {
		s.Enqueue(gatewaytest.Reply{Content: "hi", Model: "llama-3.3-70b:web"})
		resp := generate(t, llm, []llms.MessageContent{human("hi")}, opts...)
		checkServed(t, "answer", resp.Choices[0].GenerationInfo, "llama-3.3-70b:web", nil, "")
	}
}
