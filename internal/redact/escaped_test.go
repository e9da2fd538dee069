package redact

import (
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
	"testing"
)

// redactedText is the replacement the SDK's errors use.
const redactedText = "[redacted]"

// A server may write a credential back escaped in every way a body can hold text; each spelling
// is blanked out whole, and the text around it kept.
func TestEscapedCredentialsRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk_live.KEY-42"
	c := New(redactedText, key)
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
		{"HTML decimal, zero-padded", `&#00000115;k_live.KEY-42`, ""},
		{"HTML hex, zero-padded, no semicolon", `&#x000000073k_live.KEY-42`, ""},
		{"HTML, a thousand zeros", "&#" + strings.Repeat("0", 1000) + "115;k_live.KEY-42", ""},
		{"HTML decimal past 32 bits, as html.UnescapeString wraps it", `&#4294967411;k_live.KEY-42`, ""},
		{"legacy ampersand without semicolon", `&amp#115k_live.KEY-42`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := `{"error":{"message":"bad key ` + tt.in + ` (see docs)"}}`
			want := `{"error":{"message":"bad key ` + tt.kept + `[redacted] (see docs)"}}`
			if got := string(c.Bytes([]byte(body))); got != want {
				t.Errorf("Bytes(%s)\n = %s\nwant %s", body, got, want)
			}
			if got := c.String(body); got != want {
				t.Errorf("String(%s)\n = %s\nwant %s", body, got, want)
			}
		})
	}
}

// Text with escapes and no credential is left exactly as it was.
func TestEscapesWithoutCredentialsKept(t *testing.T) {
	t.Parallel()
	c := New(redactedText, "sk-live-0123")
	for _, in := range []string{`100% \u00e9 &amp; &#233; %zz \`, `&`, `%4`, `\u12`, `&#;`, `&#x;`, `&#99999999999;`, `&nosuchname;`, `sk-live-012\u0020`} {
		if got := string(c.Bytes([]byte(in))); got != in {
			t.Errorf("Bytes(%q) = %q", in, got)
		}
	}
}

const keyAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

// randomKey is a random credential of 12 to 41 bytes.
func randomKey(rng *rand.Rand) []byte {
	key := make([]byte, 12+rng.IntN(30))
	for j := range key {
		key[j] = keyAlphabet[rng.IntN(len(keyAlphabet))]
	}
	return key
}

// htmlSpelled writes key's byte j as an HTML character reference: decimal or hex, padded with up to
// 40 zeros, its semicolon left out where the next byte cannot extend the number; or named.
func htmlSpelled(w *strings.Builder, rng *rand.Rand, key []byte, j int) {
	named := map[byte]string{'_': "&lowbar;", '.': "&period;", '-': "&#45;"}
	b, zeros := key[j], strings.Repeat("0", rng.IntN(41))
	hex, base := rng.IntN(2) == 0, 10
	if hex {
		base = 16
	}
	semi := ";"
	if j+1 < len(key) && digitValue(key[j+1], base) < 0 && rng.IntN(2) == 0 {
		semi = ""
	}
	switch n, ok := named[b]; {
	case ok && rng.IntN(3) == 0:
		w.WriteString(n)
	case hex:
		fmt.Fprintf(w, "&#%s%s%X%s", []string{"x", "X"}[rng.IntN(2)], zeros, b, semi)
	default:
		fmt.Fprintf(w, "&#%s%d%s", zeros, b, semi)
	}
}

// A property: a random credential, each byte written in a random one of the spellings a server may
// use, then quoted into JSON up to twice, is blanked out of any text around it, which is kept.
func TestEscapedCredentialProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range scaled(3000) {
		key := randomKey(rng)
		var spelled strings.Builder
		for j, b := range key {
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(&spelled, `\u%04x`, b)
			case 1, 2:
				htmlSpelled(&spelled, rng, key, j)
			case 3:
				fmt.Fprintf(&spelled, "%%%02X", b)
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
		c := New(redactedText, string(key))
		if got := string(c.Bytes([]byte(body))); got != want {
			t.Fatalf("case %d, key %s:\nBytes(%s)\n = %s\nwant %s", i, key, body, got, want)
		}
	}
}

// A property checked against html.UnescapeString, the reference for what HTML decodes: a credential
// spelled with character references (zero-padded, hex or decimal, with or without semicolons,
// named), which html.UnescapeString reads back as the credential, is blanked out.
func TestHTMLSpelledCredentialProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 13))
	for i := range scaled(2000) {
		key := randomKey(rng)
		var spelled strings.Builder
		for j, b := range key {
			if rng.IntN(4) == 0 {
				spelled.WriteByte(b)
				continue
			}
			htmlSpelled(&spelled, rng, key, j)
		}
		if got := html.UnescapeString(spelled.String()); got != string(key) {
			t.Fatalf("case %d: the generator spelled %s as %s, which html.UnescapeString reads as %s", i, key, spelled.String(), got)
		}
		body := "<p>invalid key " + spelled.String() + "</p>"
		c := New(redactedText, string(key))
		if got, want := string(c.Bytes([]byte(body))), "<p>invalid key "+redactedText+"</p>"; got != want {
			t.Fatalf("case %d, key %s:\nBytes(%s)\n = %s\nwant %s", i, key, body, got, want)
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

// FuzzRedactEscaped: blanking out never panics, never lengthens text without a credential, and leaves
// no credential that any kind of escape, undone alone or all together, still spells.
func FuzzRedactEscaped(f *testing.F) {
	for _, seed := range []string{`&#115;k-1234567`, `\u0073k-1234567`, `%73k-1234567`, `&`, `\u`, `&#x`, `%`, `&lowbar;`, `\\u0073k-1234567`,
		`&#0000000115;k-1234567`, `&#x00073k-1234567`, `&#4294967411;k-1234567`, `&amp#115k-1234567`, `&ampx&#128;&#xD800;&#0;`} {
		f.Add(seed)
	}
	const key = "sk-1234567"
	c := New(redactedText, key)
	f.Fuzz(func(t *testing.T, in string) {
		out := c.String(in)
		if !strings.Contains(in, redactedText) && !strings.Contains(out, redactedText) && out != in {
			t.Fatalf("changed text without a credential: %q -> %q", in, out)
		}
		if h := html.UnescapeString(html.UnescapeString(html.UnescapeString(out))); strings.Contains(h, key) {
			t.Fatalf("%q -> %q still spells the key to html.UnescapeString: %q", in, out, h)
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

// A large body is read in overlapping windows: a credential spelled with escapes is blanked out
// wherever it falls, across a window's edge too.
func TestEscapedCredentialsInALargeBody(t *testing.T) {
	t.Parallel()
	const key = "sk-live-0123456789"
	c := New(redactedText, key)
	spelled := `\u0073k-live-0123456789`
	window, _ := escapeWindow(c.longest)
	for cut := range len(spelled) + 1 { // cut bytes of the credential fall before the window's edge
		filler := strings.Repeat(`\n`, (window-cut)/2) + strings.Repeat(" ", (window-cut)%2)
		body := filler + spelled + filler + spelled
		want := filler + redactedText + filler + redactedText
		if got := string(c.Bytes([]byte(body))); got != want {
			t.Errorf("a credential %d bytes before a window's edge: %d of 2 left", cut, strings.Count(got, spelled))
		}
	}
}
