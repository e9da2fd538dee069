package gatewaytest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

// call sends one request to path (below /api/v1) with the given bearer
// token ("" for none) and returns the response and its whole body.
func call(t *testing.T, s *gatewaytest.Server, method, path, token string, body io.Reader, contentType string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+"/api/v1"+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// send is call with the API key and a JSON body (nil for none).
func send(t *testing.T, s *gatewaytest.Server, method, path string, v any) (*http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	return call(t, s, method, path, gatewaytest.DefaultAPIKey, body, "application/json")
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %q", err, b)
	}
	return m
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v: %q", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("body\n got: %s\nwant: %s", gb, wb)
	}
}

func userMsg(text string) map[string]any {
	return map[string]any{"model": "llama-3.3-70b", "messages": []any{
		map[string]any{"role": "user", "content": text},
	}}
}

func streamMsg(text string) map[string]any {
	m := userMsg(text)
	m["stream"] = true
	return m
}

// events splits a stream body into its non-empty lines, CRLF or LF.
func events(body []byte) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// chunks decodes the JSON data events of a stream, skipping everything else.
func chunks(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range events(body) {
		p, ok := strings.CutPrefix(l, "data: ")
		if !ok || p == "[DONE]" {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(p), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// choice0 returns choices[0] of a chunk or response, or nil when choices is empty.
func choice0(m map[string]any) map[string]any {
	cs, _ := m["choices"].([]any)
	if len(cs) == 0 {
		return nil
	}
	c, _ := cs[0].(map[string]any)
	return c
}

func repeat(s string, n int) string { return strings.Repeat(s, n) }

func stringReader(s string) io.Reader { return strings.NewReader(s) }
