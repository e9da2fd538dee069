package gatewaytest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// FuzzCassetteFile opens any file a person may have edited and replays a
// plain and a streamed chat from it: an odd file is an error, never a panic.
func FuzzCassetteFile(f *testing.F) {
	f.Add([]byte(pacedFile))
	f.Add([]byte(`{"version":1,"interactions":[null]}`))
	f.Add([]byte(`{"version":1,"interactions":[{"request":{"method":"POST","path":"/api/v1/chat/completions","json":{"messages":[{"content":"Capital of France?","role":"user"}],"model":"llama-3.3-70b"}},"response":{"status":200,"json":{"choices":[]}}}]}`))
	f.Add([]byte(`{"version":1,"interactions":[{"request":{"method":"POST","path":"/api/v1/chat/completions","json":{"messages":[{"content":"Capital of France?","role":"user"}],"model":"llama-3.3-70b","stream":true}},"response":{"status":200,"events":[{"data":[1,2]},{"raw":"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":99}]}}]}\n\n"}]}}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		play, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteReplay)
		if err != nil {
			return
		}
		// A recorded 429 may ask for a long wait: no retries, so none is taken.
		client := offline(t, play, infergate.WithMaxRetries(0))
		client.Chat.Create(context.Background(), chatReq)
		streamSession(context.Background(), client)
		play.Close()
	})
}
