package infergate

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// A server may write a credential back escaped in every way a body can hold text; each spelling
// is blanked out whole, and the text around it kept.
func TestEscapedCredentialsRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk_live.KEY-42"
	c := &config{secretForms: secretForms(newSecret(key))}
	for _, tt := range []struct{ name, in, kept string }{ // kept: what stays before the credential
		{"JSON, first letter", `\u0073k_live.KEY-42`, ""},
		{"JSON, every letter", `\u0073\u006B\u005f\u006c\u0069\u0076\u0065\u002e\u004b\u0045\u0059\u002d\u0034\u0032`, ""},
		{"HTML decimal", `&#115;k_live.KEY-42`, ""},
		{"HTML hex, no semicolon", `&#x73k_live.KEY-42`, ""},
		{"HTML named", `sk&lowbar;live&period;KEY-42`, ""},
		{"percent, one letter", `sk_live.KEY%2d42`, ""},
		{"mixed", `&#115;\u006b%5Flive.KEY-42`, ""},
		{"JSON in JSON", `\\u0073k_live.KEY-42`, ""},
		{"HTML in JSON", `\u0026#115;k_live.KEY-42`, ""},
		{"HTML-escaped ampersand", `&amp;#115;k_live.KEY-42`, ""},
		{"after a stray percent", `%&#115;k_live.KEY-42`, "%"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := `{"error":{"message":"bad key ` + tt.in + ` (see docs)"}}`
			want := `{"error":{"message":"bad key ` + tt.kept + `[redacted] (see docs)"}}`
			if got := string(c.redact([]byte(body))); got != want {
				t.Errorf("redact(%s)\n = %s\nwant %s", body, got, want)
			}
			if got := c.redactString(body); got != want {
				t.Errorf("redactString(%s)\n = %s\nwant %s", body, got, want)
			}
		})
	}
}

// Text with escapes and no credential is left exactly as it was.
func TestEscapesWithoutCredentialsKept(t *testing.T) {
	t.Parallel()
	c := &config{secretForms: secretForms(newSecret("sk-live-0123"))}
	for _, in := range []string{`100% \u00e9 &amp; &#233; %zz \`, `&`, `%4`, `\u12`, `&#;`, `&#x;`, `&#99999999999;`, `&nosuchname;`, `sk-live-012\u0020`} {
		if got := string(c.redact([]byte(in))); got != in {
			t.Errorf("redact(%q) = %q", in, got)
		}
	}
}

// A property: a random credential, each byte written in a random one of the spellings a server may
// use, then quoted into JSON up to twice, is blanked out of any text around it, which is kept.
func TestEscapedCredentialProperty(t *testing.T) {
	t.Parallel()
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
	named := map[byte]string{'_': "&lowbar;", '.': "&period;", '-': "&#45;"}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range Scaled(3000) {
		key := make([]byte, 12+rng.IntN(30))
		for j := range key {
			key[j] = alphabet[rng.IntN(len(alphabet))]
		}
		var spelled strings.Builder
		for _, b := range key {
			switch rng.IntN(7) {
			case 0:
				fmt.Fprintf(&spelled, `\u%04x`, b)
			case 1:
				fmt.Fprintf(&spelled, "&#%d;", b)
			case 2:
				fmt.Fprintf(&spelled, "&#x%X;", b)
			case 3:
				fmt.Fprintf(&spelled, "%%%02X", b)
			case 4:
				if n, ok := named[b]; ok {
					spelled.WriteString(n)
					continue
				}
				spelled.WriteByte(b)
			default:
				spelled.WriteByte(b)
			}
		}
		prefix, suffix := randomText(rng), randomText(rng)
		body := prefix + " " + spelled.String() + " " + suffix
		want := prefix + " " + redactedText + " " + suffix
		for range rng.IntN(3) { // quoted into a JSON string, as a provider's error inside the gateway's
			body, want = jsonQuoted(body), jsonQuoted(want)
		}
		c := &config{secretForms: secretForms(newSecret(string(key)))}
		if got := string(c.redact([]byte(body))); got != want {
			t.Fatalf("case %d, key %s:\nredact(%s)\n = %s\nwant %s", i, key, body, got, want)
		}
	}
}

// randomText is words, punctuation and harmless escapes, none of the letters of a credential's
// alphabet touching the gap left for it.
func randomText(rng *rand.Rand) string {
	parts := []string{"error", "100%", "&amp;", `\n`, "é", `"quoted"`, "{", "}", ":", "invalid key", "&#233;", `\u00e9`}
	var b strings.Builder
	for range rng.IntN(6) {
		b.WriteString(parts[rng.IntN(len(parts))])
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}

func jsonQuoted(s string) string {
	q := fmt.Sprintf("%q", s) // Go's quoting escapes what JSON's does for this text: \ and "
	return q[1 : len(q)-1]
}

// FuzzRedactEscaped: redaction never panics, never lengthens text without a credential, and leaves
// no credential that any kind of escape, undone alone or all together, still spells.
func FuzzRedactEscaped(f *testing.F) {
	for _, seed := range []string{`&#115;k-1234567`, `\u0073k-1234567`, `%73k-1234567`, `&`, `\u`, `&#x`, `%`, `&lowbar;`, `\\u0073k-1234567`} {
		f.Add(seed)
	}
	const key = "sk-1234567"
	c := &config{secretForms: secretForms(newSecret(key))}
	f.Fuzz(func(t *testing.T, in string) {
		out := c.redactString(in)
		if !strings.Contains(in, redactedText) && !strings.Contains(out, redactedText) && out != in {
			t.Fatalf("changed text without a credential: %q -> %q", in, out)
		}
		for _, kinds := range []escapes{allEscapes, jsonEscapes, htmlReferences, percentEscapes} {
			u := unescaped{text: []byte(out)}
			for range escapeDepth {
				if strings.Contains(string(u.text), key) {
					t.Fatalf("%q -> %q still spells the key", in, out)
				}
				u, _ = u.unescape(kinds, false)
			}
			if strings.Contains(string(u.text), key) {
				t.Fatalf("%q -> %q still spells the key", in, out)
			}
		}
	})
}

// An *APIError keeps the body the server sent, so its escaped echo of the key is blanked out there
// too, not only in the decoded message.
func TestAPIErrorBodyRedactsEscapedKey(t *testing.T) {
	t.Parallel()
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `<html><body><p>Key &#115;k-live-SECRETKEY0123456789abcdef was refused</p></body></html>`)
	})
	client, _ := newTestClient(t, srv.URL, WithAPIKey(secretKey))
	_, err := client.Models.List(t.Context())
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want an *APIError", err)
	}
	if want := `<html><body><p>Key [redacted] was refused</p></body></html>`; string(apiErr.Body) != want {
		t.Errorf("Body = %s, want %s", apiErr.Body, want)
	}
	if apiErr.Message != "Key [redacted] was refused" {
		t.Errorf("Message = %q", apiErr.Message)
	}
	assertNoSecret(t, "error", formatted(err))
}

// A large body is read in overlapping windows: a credential spelled with escapes is blanked out
// wherever it falls, across a window's edge too.
func TestEscapedCredentialsInALargeBody(t *testing.T) {
	t.Parallel()
	const key = "sk-live-0123456789"
	c := &config{secretForms: secretForms(newSecret(key))}
	spelled := `\u0073k-live-0123456789`
	var longest int
	for _, f := range c.secretForms {
		longest = max(longest, len(f.reveal()))
	}
	window, _ := escapeWindow(longest)
	for cut := range len(spelled) + 1 { // cut bytes of the credential fall before the window's edge
		filler := strings.Repeat(`\n`, (window-cut)/2) + strings.Repeat(" ", (window-cut)%2)
		body := filler + spelled + filler + spelled
		want := filler + redactedText + filler + redactedText
		if got := string(c.redact([]byte(body))); got != want {
			t.Errorf("a credential %d bytes before a window's edge: %d of 2 left", cut, strings.Count(got, spelled))
		}
	}
}
