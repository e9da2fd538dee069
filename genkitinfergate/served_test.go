package genkitinfergate_test

import (
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/genkitinfergate"
)

// checkServed checks the model and fallbacks a message's Metadata reports: fallbacks lists the
// models that failed, each with an error that says wantErr.
func checkServed(t *testing.T, path string, meta map[string]any, model string, fallbacks []string, wantErr string) {
	t.Helper()
	if meta["model"] != model {
		t.Errorf("%s: Metadata[model] = %#v, want %q", path, meta["model"], model)
	}
	got, present := meta["fallbacks"]
	if len(fallbacks) == 0 {
		if present {
			t.Errorf("%s: Metadata[fallbacks] = %#v, want none", path, got)
		}
		return
	}
	list, ok := got.([]map[string]any)
	if !ok {
		t.Fatalf("%s: Metadata[fallbacks] is %T %#v, want []map[string]any", path, got, got)
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

// A model that is down and the fallback that answered for it reach the response's message,
// streamed or not.
func TestResponseSaysWhichModelServed(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t, gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageRetryFailed))
	g := genkit.Init(t.Context(), genkit.WithPlugins(genkitinfergate.New(srv.Client(), genkitinfergate.WithoutRetries(),
		genkitinfergate.WithCallOptions(infergate.WithFallbackModels("qwen2.5-vl-72b")))))
	srv.Enqueue(gatewaytest.Reply{Content: "from the spare"}, gatewaytest.Reply{Content: "from the spare"})
	resp, err := generate(g, ai.WithPrompt("q"))
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "Generate", resp.Message.Metadata, "qwen2.5-vl-72b", []string{"llama-3.3-70b"}, "provider request failed")
	resp, _, err = streamed(g, ai.WithPrompt("q"))
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "streamed", resp.Message.Metadata, "qwen2.5-vl-72b", []string{"llama-3.3-70b"}, "all providers of the model failed")
}

// An answer the first model gave names it, and no fallbacks; in a tool loop, each model turn of
// the history says its own.
func TestResponseSaysModelWithoutFallback(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	echo := genkit.DefineTool(g, "echo", "Says it back.", func(_ *ai.ToolContext, in string) (string, error) { return in, nil })
	srv.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "echo", Arguments: `"x"`}}, Model: "llama-3.3-70b:web"},
		gatewaytest.Reply{Content: "done"})
	resp, err := generate(g, ai.WithPrompt("q"), ai.WithTools(echo))
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "answer", resp.Message.Metadata, gatewaytest.DefaultModel, nil, "")
	var models []any
	for _, m := range resp.History() {
		if m.Role == ai.RoleModel {
			models = append(models, m.Metadata["model"])
		}
	}
	if d := cmp.Diff([]any{"llama-3.3-70b:web", gatewaytest.DefaultModel}, models); d != "" {
		t.Errorf("the history's model turns (-want +got):\n%s", d)
	}
}
