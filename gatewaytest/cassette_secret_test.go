package gatewaytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Credentials with characters that every escaping spells differently.
const (
	secretAPIKey = `sk-live/Key+with&odd<chars>"=%41`
	secretToken  = `eyJhbGciOi.JSON"web/token+&<x>`
)

// unicodeEscaped spells every character of s as a JSON \u escape.
func unicodeEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// htmlEscaped spells s with zero-padded HTML character references, which
// browsers and html.UnescapeString read as s.
func htmlEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, "&#%08d;", r)
	}
	return b.String()
}

// revealed is every string the file holds, JSON-decoded and HTML-unescaped
// twice, so that a credential hidden behind character references shows.
func revealed(t *testing.T, file []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(file, &v); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(html.UnescapeString(html.UnescapeString(v)) + "\n")
		case map[string]any:
			for k, e := range v {
				b.WriteString(k + "\n")
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// credentialForms are the spellings of s that must not be in the file.
func credentialForms(s string) []string {
	j, _ := json.Marshal(s)
	return []string{s, string(j[1 : len(j)-1]), url.QueryEscape(s), url.PathEscape(s), unicodeEscaped(s)}
}

func TestCassetteWritesNoSecret(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	fake := gatewaytest.NewServer(gatewaytest.WithAcceptedAPIKey(secretAPIKey), gatewaytest.WithAcceptedAccessToken(secretToken))
	defer fake.Close()
	// The gateway echoes the key it is given, as some servers do in errors.
	fake.Enqueue(gatewaytest.Reply{Content: "your key is " + secretAPIKey})
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	client := fake.Client(rec.Option())
	ctx := context.Background()

	// A user pastes a key into a prompt; one is used as an id in a URL.
	if _, err := client.Chat.Create(ctx, infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("is " + secretAPIKey + " safe?")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.History.Get(ctx, secretToken); err == nil {
		t.Fatal("History.Get of an unknown chat succeeded")
	}
	// A server that spells the key with JSON escapes in an error.
	fake.FailNext(1, gatewaytest.ErrorReply{Status: 400, Route: "/api/v1/models", Body: `{"detail":"bad key ` + unicodeEscaped(secretAPIKey) + `"}`})
	if _, err := client.Models.List(ctx); err == nil {
		t.Fatal("the injected failure did not answer")
	}
	// An error page, and a JSON error, that spell it with HTML references.
	fake.FailNext(1, gatewaytest.ErrorReply{Status: 400, Route: "/api/v1/models", Body: `{"detail":"bad key ` + htmlEscaped(secretAPIKey) + `"}`})
	if _, err := client.Models.List(ctx); err == nil {
		t.Fatal("the injected failure did not answer")
	}
	fake.FailNext(1, gatewaytest.HTMLErrorReply(403, "<html><body><p>bad key "+htmlEscaped(secretAPIKey)+"</p></body></html>").On("/api/v1/models"))
	if _, err := client.Models.List(ctx); err == nil {
		t.Fatal("the injected page did not answer")
	}
	created, err := client.Keys.Create(ctx, "ci")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Keys.List(ctx); err != nil {
		t.Fatal(err)
	}
	// The new key is then used (the fake refuses it), so it travels in a
	// header too and comes back in an error.
	client.Models.List(ctx, infergate.WithAPIKey(created.Key))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file := string(b)
	shown := revealed(t, b)
	for name, s := range map[string]string{"API key": secretAPIKey, "access token": secretToken, "created key": created.Key} {
		if strings.Contains(shown, s) {
			t.Errorf("the file holds the %s behind JSON or HTML escapes", name)
		}
		for _, f := range credentialForms(s) {
			if strings.Contains(file, f) {
				t.Errorf("the file holds the %s as %q", name, f)
			}
		}
	}
	for _, h := range []string{"Authorization", "Idempotency-Key", "Cookie"} {
		if strings.Contains(strings.ToLower(file), strings.ToLower(h)) {
			t.Errorf("the file holds a %s header", h)
		}
	}
	if !strings.Contains(file, "REDACTED") || !strings.Contains(file, `"key_prefix"`) {
		t.Fatalf("the file lost more than the credentials:\n%s", file)
	}

	// With the same credentials, the scrubbed recording still answers: the
	// cassette scrubs what is sent before it compares.
	play := openCassette(t, path, gatewaytest.CassetteReplay)
	replay, err := infergate.NewClient(infergate.WithBaseURL("http://127.0.0.1:9"), infergate.WithAPIKey(secretAPIKey), infergate.WithAccessToken(secretToken), play.Option())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := replay.Chat.Create(ctx, infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("is " + secretAPIKey + " safe?")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "your key is REDACTED" {
		t.Fatalf("replayed %q", resp.Text())
	}
	key, err := replay.Keys.Create(ctx, "ci")
	if err != nil || key.Key != "REDACTED" {
		t.Fatalf("replayed Keys.Create gave %q, %v; want the key redacted", key.Key, err)
	}
}

func TestCassetteScrubber(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	hide := func(in *gatewaytest.Interaction) {
		in.Request.JSON = []byte(strings.ReplaceAll(string(in.Request.JSON), "Alice", "NAME"))
		if in.Response.JSON != nil {
			in.Response.JSON = []byte(strings.ReplaceAll(string(in.Response.JSON), "Alice", "NAME"))
		}
	}
	fake := gatewaytest.NewServer()
	defer fake.Close()
	rec := openCassette(t, path, gatewaytest.CassetteRecord, gatewaytest.WithCassetteScrubber(hide))
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("Hello, I am Alice")}}
	if _, err := fake.Client(rec.Option()).Chat.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "Alice") || !strings.Contains(string(b), "NAME") {
		t.Fatalf("the scrubber did not run over the file:\n%s", b)
	}
	// The scrubber runs over what is sent too, so the request still matches.
	play := openCassette(t, path, gatewaytest.CassetteReplay, gatewaytest.WithCassetteScrubber(hide))
	resp, err := offline(t, play).Chat.Create(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Text(), "NAME") {
		t.Fatalf("replayed %q", resp.Text())
	}
	var miss *gatewaytest.CassetteMissError
	if _, err := offline(t, play).Chat.Create(context.Background(), req); !errors.As(err, &miss) {
		t.Fatalf("a second identical call: %v, want a *CassetteMissError", err)
	}
}
