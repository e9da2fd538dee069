package einoinfergate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

// checkServed checks the model and fallbacks a message's Extra reports: fallbacks lists the models
// that failed, each with an error that says wantErr.
func checkServed(t *testing.T, path string, extra map[string]any, model string, fallbacks []string, wantErr string) {
	t.Helper()
	if extra["model"] != model {
		t.Errorf("%s: Extra[model] = %#v, want %q", path, extra["model"], model)
	}
	got, present := extra["fallbacks"]
	if len(fallbacks) == 0 {
		if present {
			t.Errorf("%s: Extra[fallbacks] = %#v, want none", path, got)
		}
		return
	}
	list, ok := got.([]map[string]any)
	if !ok {
		t.Fatalf("%s: Extra[fallbacks] is %T %#v, want []map[string]any", path, got, got)
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

// A model that is down and the fallback that answered for it reach the message, from Generate and
// from Stream alike.
func TestMessageSaysWhichModelServed(t *testing.T) {
	t.Parallel()
	srv := gatewaytest.New(t, gatewaytest.WithModelDown("llama-3.3-70b", gatewaytest.OutageRetryFailed))
	m, err := einoinfergate.NewChatModel(srv.Client(), "llama-3.3-70b", einoinfergate.WithoutRetries(),
		einoinfergate.WithCallOptions(infergate.WithFallbackModels("qwen2.5-vl-72b")))
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(gatewaytest.Reply{Content: "from the spare"}, gatewaytest.Reply{Content: "from the spare"})
	msg, err := m.Generate(context.Background(), question("q"))
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "Generate", msg.Extra, "qwen2.5-vl-72b", []string{"llama-3.3-70b"}, "provider request failed")

	got, msgs := streamed(t, m, question("q"))
	checkServed(t, "Stream", got.Extra, "qwen2.5-vl-72b", []string{"llama-3.3-70b"}, "all providers of the model failed")
	// Only the last message says it, so that concatenating the stream keeps one value of each.
	for _, msg := range msgs[:len(msgs)-1] {
		if msg.Extra != nil {
			t.Errorf("Stream: message %+v has Extra before the last", msg)
		}
	}
}

// A call the first model answered names it, and no fallbacks.
func TestMessageSaysModelWithoutFallback(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	srv.Enqueue(gatewaytest.Reply{Content: "hi", Model: "llama-3.3-70b:web"}, gatewaytest.Reply{Content: "hi"})
	msg, err := m.Generate(context.Background(), question("q"))
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "Generate", msg.Extra, "llama-3.3-70b:web", nil, "")
	got, _ := streamed(t, m, question("q"))
	checkServed(t, "Stream", got.Extra, gatewaytest.DefaultModel, nil, "")
}
