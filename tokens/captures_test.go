package tokens_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/tokens"
)

// Recorded traffic of real clients is not part of the repository; given its folder, the test reads
// every conversation it holds: each JSON object with a "messages" list of messages with roles,
// wherever in a file it starts (request bodies, cassettes, HTTP traces, curl lines, API examples).
var captures = flag.String("captures", "", "a folder of recorded traffic whose conversations TestCountPromptEqualsNodeOnCapturedConversations compares")

func TestCountPromptEqualsNodeOnCapturedConversations(t *testing.T) {
	if *captures == "" {
		t.Skip("no -captures folder given")
	}
	found := map[string]string{} // the messages' JSON, by where they were first found
	err := filepath.WalkDir(*captures, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, msgs := range conversationsIn(data) {
			if _, seen := found[string(msgs)]; !seen {
				found[string(msgs)] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatalf("no conversation in %s", *captures)
	}
	w := newWire(t)
	compared, refused, total := 0, 0, 0
	folders := map[string]int{}
	for raw, path := range found {
		var msgs []infergate.Message
		if err := json.Unmarshal([]byte(raw), &msgs); err != nil {
			t.Errorf("%s: the SDK cannot read %s: %v", path, raw, err)
			continue
		}
		if err := (&infergate.ChatRequest{Model: "m", Messages: msgs}).Validate(); err != nil {
			refused++ // the SDK does not send it, so no node counts it
			t.Logf("%s: not sent: %v", path, err)
			continue
		}
		body := w.send(t, msgs)
		got, want := tokens.CountPrompt(msgs), nodeCountBody(t, body)
		if got != want {
			t.Errorf("%s: CountPrompt = %d, the node counts %d in\n%s", path, got, want, body)
		}
		compared++
		total += want
		folders[filepath.Base(filepath.Dir(path))]++
	}
	t.Logf("%d conversations found, %d compared (%d prompt tokens in all), %d the SDK refuses to send; by folder: %v", len(found), compared, total, refused, folders)
}

// conversationsIn returns the "messages" lists of the JSON objects in data, as their JSON.
func conversationsIn(data []byte) []json.RawMessage {
	var out []json.RawMessage
	for i := 0; i < len(data); i++ {
		if data[i] != '{' {
			continue
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data[i:]))
		if dec.Decode(&v) != nil {
			continue
		}
		collect(v, &out)
	}
	return out
}

// collect appends the conversations found in v, however deep.
func collect(v any, out *[]json.RawMessage) {
	switch v := v.(type) {
	case map[string]any:
		if msgs, ok := v["messages"].([]any); ok && isConversation(msgs) {
			raw, _ := json.Marshal(msgs)
			*out = append(*out, raw)
		}
		for _, e := range v {
			collect(e, out)
		}
	case []any:
		for _, e := range v {
			collect(e, out)
		}
	}
}

func isConversation(msgs []any) bool {
	for _, m := range msgs {
		o, ok := m.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := o["role"].(string); !ok {
			return false
		}
	}
	return len(msgs) > 0
}
