package gatewaytest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// percentSpelled percent-encodes the bytes of s that pick chooses, in upper-
// or lower-case hex.
func percentSpelled(s string, lower bool, pick func(i int, b byte) bool) string {
	var b strings.Builder
	for i := range len(s) {
		switch {
		case !pick(i, s[i]):
			b.WriteByte(s[i])
		case lower:
			fmt.Fprintf(&b, "%%%02x", s[i])
		default:
			fmt.Fprintf(&b, "%%%02X", s[i])
		}
	}
	return b.String()
}

func every(int, byte) bool { return true }

// punctuation picks the bytes that are not letters or digits, which
// url.QueryEscape leaves as they are when they are '-', '_' or '.'.
func punctuation(_ int, c byte) bool {
	return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}

// spellings are the ways a server may write s back that the file must not
// hold: as it is, JSON-escaped, \u-escaped, and percent-encoded every way.
func spellings(s string) []string {
	j, _ := json.Marshal(s)
	forms := []string{
		s, string(j[1 : len(j)-1]), unicodeEscaped(s), url.QueryEscape(s), url.PathEscape(s),
		percentSpelled(s, false, every), percentSpelled(s, true, every),
		percentSpelled(s, false, punctuation), percentSpelled(s, true, punctuation),
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// fileTexts is every text the cassette file holds as its reader sees it: the
// file itself, each of its strings decoded, and each base64 body decoded.
func fileTexts(t *testing.T, file []byte) []string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(file, &doc); err != nil {
		t.Fatalf("the file is not JSON: %v\n%s", err, file)
	}
	texts := []string{string(file)}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
			if key == "base64" {
				b, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					t.Fatalf("a base64 body does not decode: %v", err)
				}
				texts = append(texts, string(b))
			}
		case map[string]any:
			for k, e := range v {
				texts = append(texts, k)
				walk(k, e)
			}
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		}
	}
	walk("", doc)
	return texts
}

// assertNoSpelling fails the test for every spelling of each secret the file
// holds.
func assertNoSpelling(t *testing.T, file []byte, secrets ...string) {
	t.Helper()
	texts := fileTexts(t, file)
	for _, s := range secrets {
		for _, f := range spellings(s) {
			for _, text := range texts {
				if strings.Contains(text, f) {
					t.Errorf("the file holds %q as %q", s, f)
					break
				}
			}
		}
	}
}

// A gateway that echoes the key percent-encoded (all of it in upper-case
// hex, or only its dashes in lower case), in a Latin-1 page or an
// octet-stream answer (kept as base64), or hands out a short key: no
// spelling of any of them reaches the file.
func TestCassetteScrubsEverySpellingOfAKey(t *testing.T) {
	t.Parallel()
	const key = "sk-cas-KEY0123456789abcdef"
	const short = "sk-tiny9"
	path := filepath.Join(t.TempDir(), "c.json")
	fake := gatewaytest.NewServer(gatewaytest.WithAcceptedAPIKey(key))
	defer fake.Close()
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	client := fake.Client(rec.Option(), infergate.WithMaxRetries(0))
	ctx := context.Background()
	for _, reply := range []gatewaytest.ErrorReply{
		{Status: 401, Body: `{"detail":"bad key ` + percentSpelled(key, false, every) + `"}`},
		{Status: 401, Body: `{"detail":"bad key ` + percentSpelled(key, true, punctuation) + `"}`},
		{Status: 401, Body: "bad key " + percentSpelled(key, true, punctuation), ContentType: "text/plain"},
		{Status: 403, Body: "<p>Cl\xe9 refus\xe9e : " + key + "</p>", ContentType: "text/html; charset=iso-8859-1"},
		{Status: 400, Body: "\x00\xff" + key + "\x00", ContentType: "application/octet-stream"},
	} {
		fake.FailNext(1, reply.On("/api/v1/models"))
		if _, err := client.Models.List(ctx); err == nil {
			t.Fatal("the scripted failure did not answer")
		}
	}
	fake.FailNext(1, gatewaytest.ErrorReply{Status: 200, ContentType: "application/octet-stream", Body: "RIFF" + key}.On("/api/v1/audio/speech"))
	audio, err := client.Audio.Speak(ctx, infergate.SpeechRequest{Input: "Hello"})
	if err != nil {
		t.Fatal(err)
	}
	audio.Close()
	fake.FailNext(1, gatewaytest.ErrorReply{Status: 200, Body: `{"key":"` + short + `","key_prefix":"sk-ti","name":"ci"}`}.On("/api/v1/auth/keys"))
	created, err := client.Keys.Create(ctx, "ci")
	if err != nil || created.Key != short {
		t.Fatalf("Keys.Create: %v, %v", created, err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSpelling(t, b, key, short)
	if _, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteReplay); err != nil {
		t.Fatal(err)
	}
}

// idempotencyEcho answers every POST with a 409 that repeats the request's
// Idempotency-Key, as a gateway refusing a duplicate does, and keeps the keys.
type idempotencyEcho struct {
	mu   sync.Mutex
	keys []string
}

func (e *idempotencyEcho) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k := r.Header.Get("Idempotency-Key")
	e.mu.Lock()
	e.keys = append(e.keys, k)
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Idempotency-Key", k)
	w.WriteHeader(http.StatusConflict)
	fmt.Fprintf(w, `{"detail":"a request with key %s is in progress (%s)"}`, k, url.QueryEscape(k))
}

func TestCassetteWritesNoIdempotencyKey(t *testing.T) {
	t.Parallel()
	echo := &idempotencyEcho{}
	srv := httptest.NewServer(echo)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "c.json")
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey("sk-idem-test-key"),
		infergate.WithMaxRetries(1), infergate.WithRetryBackoff(0, 0), rec.Option())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(context.Background(), chatReq); err == nil {
		t.Fatal("the 409 did not fail the call")
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(echo.keys) != 2 || echo.keys[0] == "" {
		t.Fatalf("the server saw keys %q, want one key sent twice", echo.keys)
	}
	assertNoSpelling(t, b, echo.keys[0])
}
