package gatewaytest_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// credentialAlphabet is what keys are made of, punctuation that every
// escaping spells differently included.
const credentialAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/="

// randomCredential is "sk-" and n random characters.
func randomCredential(rng *rand.Rand, n int) string {
	b := []byte("sk-")
	for range n {
		b = append(b, credentialAlphabet[rng.IntN(len(credentialAlphabet))])
	}
	return string(b)
}

// spelled writes each byte of key in a random one of the escapes a body of
// the kind allows: percent-encoding in either case of hex, and \u escapes in
// JSON or character references in text.
func spelled(rng *rand.Rand, key string, jsonBody, binary bool) string {
	var b strings.Builder
	for i := range len(key) {
		c := key[i]
		switch n := rng.IntN(5); {
		case n == 0:
			fmt.Fprintf(&b, "%%%02X", c)
		case n == 1:
			fmt.Fprintf(&b, "%%%02x", c)
		case n == 2 && jsonBody:
			fmt.Fprintf(&b, `\u%04x`, c)
		case n == 2 && !binary:
			fmt.Fprintf(&b, "&#%d;", c)
		case jsonBody && (c == '"' || c == '\\'):
			b.WriteString(`\` + string(c))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// decodedOnce undoes one layer of every escape a server may spell a key
// with, leniently: %XX, \uXXXX and HTML character references.
func decodedOnce(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+3 <= len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		case s[i] == '\\' && i+6 <= len(s) && s[i+1] == 'u':
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				b.WriteRune(rune(v))
				i += 5
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return html.UnescapeString(b.String())
}

// scriptedServer answers every request with the reply set last.
type scriptedServer struct {
	mu          sync.Mutex
	status      int
	contentType string
	body        string
}

func (s *scriptedServer) set(status int, contentType, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.contentType, s.body = status, contentType, body
}

func (s *scriptedServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", s.contentType)
	w.WriteHeader(s.status)
	io.WriteString(w, s.body)
}

// A property: a random key, sent in a prompt and echoed by the server with
// each byte spelled at random (percent-encoded in either case of hex, \u
// escaped, behind character references) in a JSON, text or binary body, or
// handed out short by Keys.Create, is in the written file in no spelling,
// however many layers of escapes are undone.
func TestCassetteKeySpellingProperty(t *testing.T) {
	t.Parallel()
	script := &scriptedServer{}
	srv := httptest.NewServer(script)
	defer srv.Close()
	rng := rand.New(rand.NewPCG(41, 8))
	for i := range 300 {
		key := randomCredential(rng, 13+rng.IntN(30))
		path := filepath.Join(t.TempDir(), "c.json")
		rec := openCassette(t, path, gatewaytest.CassetteRecord)
		client, err := infergate.NewClient(infergate.WithBaseURL(srv.URL), infergate.WithAPIKey(key),
			infergate.WithAccessToken("tok-"+key), infergate.WithMaxRetries(0), rec.Option())
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var secrets = []string{key}
		switch kind := rng.IntN(5); kind {
		case 0, 1: // JSON
			script.set(400+rng.IntN(100), "application/json", `{"detail":"bad key `+spelled(rng, key, true, false)+`"}`)
		case 2: // text or an HTML page
			script.set(401, []string{"text/plain", "text/html"}[rng.IntN(2)], "<p>bad key "+spelled(rng, key, false, false)+"</p>")
		case 3: // Latin-1 or octet-stream, kept as base64
			script.set(403, []string{"text/html; charset=iso-8859-1", "application/octet-stream"}[rng.IntN(2)], "refus\xe9 "+spelled(rng, key, false, true))
		case 4: // a short key handed out
			short := randomCredential(rng, 1+rng.IntN(12))
			secrets = append(secrets, short)
			script.set(200, "application/json", `{"key":"`+short+`","key_prefix":"sk-","name":"ci"}`)
			if _, err := client.Keys.Create(ctx, "ci"); err != nil {
				t.Fatal(err)
			}
		}
		client.Chat.Create(ctx, infergate.ChatRequest{Model: "m", Messages: []infergate.Message{infergate.UserMessage("is " + spelled(rng, key, false, false) + " mine?")}})
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range fileTexts(t, b) {
			for range 3 {
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Fatalf("case %d: the file spells %q:\n%s", i, s, b)
					}
				}
				text = decodedOnce(text)
			}
		}
		if _, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteReplay); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
	}
}
