package gatewaytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// echoTransport answers every request with a 401 that repeats the bearer
// key, without a network.
type echoTransport struct{}

func (echoTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	key, _ := json.Marshal(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "))
	return &http.Response{
		StatusCode: http.StatusUnauthorized, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"detail":"bad key ` + string(key[1:len(key)-1]) + `"}`)), Request: req,
	}, nil
}

// fuzzKey is "sk-fz-" and the printable ASCII of tail, at most 40 bytes.
func fuzzKey(tail string) string {
	b := []byte("sk-fz-")
	for i := 0; i < len(tail) && len(b) < 46; i++ {
		if tail[i] > ' ' && tail[i] < 0x7f {
			b = append(b, tail[i])
		}
	}
	return string(b)
}

// FuzzCassetteFile opens any file a person may have edited and replays a
// plain and a streamed chat from it: an odd file is an error, never a panic.
// It then records over the file with a key that the server echoes and the
// prompt repeats: the file Close writes opens again and spells the key
// nowhere, in the file's entries as in the new ones.
func FuzzCassetteFile(f *testing.F) {
	f.Add([]byte(pacedFile), "key-0123")
	f.Add([]byte(`{"version":1,"interactions":[null]}`), "")
	f.Add([]byte(`{"version":1,"interactions":[{"request":{"method":"POST","path":"/api/v1/chat/completions","json":{"messages":[{"content":"Capital of France?","role":"user"}],"model":"llama-3.3-70b"}},"response":{"status":200,"json":{"choices":[]}}}]}`), "a%2Db")
	f.Add([]byte(`{"version":1,"interactions":[{"request":{"method":"POST","path":"/api/v1/chat/completions","json":{"messages":[{"content":"Capital of France?","role":"user"}],"model":"llama-3.3-70b","stream":true}},"response":{"status":200,"events":[{"data":[1,2]},{"raw":"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":99}]}}]}\n\n"}]}}]}`), `"q\u0041`)
	f.Add([]byte(`{"version":1,"interactions":[{"request":{"method":"GET","path":"/api/v1/models/sk-fz-k"},"response":{"status":401,"header":{"X-Key":["sk%2dfz%2dk"]},"text":"sk-fz-&#107;","base64":"c2stZnotaw==","truncated":true}}]}`), "k")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, keyTail string) {
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

		key := fuzzKey(keyTail)
		rec, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteRecordMissing)
		if err != nil {
			t.Fatalf("the file opened for replay but not for recording: %v", err)
		}
		client, err = infergate.NewClient(infergate.WithBaseURL("http://gateway.invalid"), infergate.WithAPIKey(key),
			infergate.WithHTTPClient(&http.Client{Transport: echoTransport{}}), infergate.WithMaxRetries(0), rec.Option())
		if err != nil {
			t.Fatal(err)
		}
		client.Chat.Create(context.Background(), infergate.ChatRequest{Model: "m", Messages: []infergate.Message{infergate.UserMessage("is " + key + " mine?")}})
		if err := rec.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		written, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteReplay); err != nil {
			t.Fatalf("the file Close wrote does not open: %v\n%s", err, written)
		}
		for _, text := range fileTexts(t, written) {
			for range 2 {
				if strings.Contains(text, key) {
					t.Fatalf("the file spells the key %q:\n%s", key, written)
				}
				text = decodedOnce(text)
			}
		}
		if bytes.Contains(written, []byte(key)) {
			t.Fatalf("the file holds the key %q", key)
		}
	})
}
