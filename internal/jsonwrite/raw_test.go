package jsonwrite

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// rawPiece is a fragment of a string's content, and whether encoding/json keeps it as it is.
type rawPiece struct {
	text string
	kept bool
}

var rawPieces = []rawPiece{
	{"plain", true}, {"", true}, {"a longer run of plain text, well past one word", true}, {"é日本🙂", true}, {`\"`, true}, {`\\`, true}, {`\/`, true},
	{`\b\f\n\r\t`, true}, {`\u00e9`, true}, {`\u003c`, true}, {`\u2028`, true}, {"\x7f", true},
	{"<", false}, {">", false}, {"&", false}, {"\u2028", false}, {"\u2029", false},
	{"\xff", false}, {"\xed\xa0\x80", false}, {`\ud83d\ude00`, false}, {`\udc00`, false},
	{"\x01", false}, {"\n", false}, {`\x`, false}, {`\u12`, false}, {`\uZZZZ`, false},
}

var rawNumbers = []rawPiece{
	{"0", true}, {"-0", true}, {"7", true}, {"-12.50", true}, {"1e3", true}, {"1E+2", true},
	{"2.5e-10", true}, {"123456789012345678901234567890", true},
	{"01", false}, {"1.", false}, {"-", false}, {".5", false}, {"1e", false}, {"+1", false}, {"0x10", false},
}

var rawSpaces = []string{" ", "\n", "\t", "\r", "  \n"}

// rawJSON builds a random JSON text and reports whether encoding/json writes it as it is: valid,
// compact, and holding only pieces it keeps.
type rawJSON struct {
	r    *rand.Rand
	b    []byte
	kept bool
}

func (g *rawJSON) space() {
	if g.r.IntN(12) == 0 {
		g.b = append(g.b, rawSpaces[g.r.IntN(len(rawSpaces))]...)
		g.kept = false
	}
}

func (g *rawJSON) str() {
	g.b = append(g.b, '"')
	for range g.r.IntN(4) {
		p := rawPieces[g.r.IntN(len(rawPieces))]
		if g.r.IntN(3) > 0 { // mostly pieces encoding/json keeps
			p = rawPieces[g.r.IntN(12)]
		}
		g.b = append(g.b, p.text...)
		g.kept = g.kept && p.kept
	}
	g.b = append(g.b, '"')
}

func (g *rawJSON) value(depth int) {
	g.space()
	kind := g.r.IntN(8)
	if depth > 4 {
		kind = 2 + g.r.IntN(6)
	}
	switch kind {
	case 0:
		g.b = append(g.b, '{')
		for i := range g.r.IntN(4) {
			if i > 0 {
				g.b = append(g.b, ',')
			}
			g.space()
			g.str()
			g.space()
			g.b = append(g.b, ':')
			g.value(depth + 1)
		}
		g.space()
		g.b = append(g.b, '}')
	case 1:
		g.b = append(g.b, '[')
		for i := range g.r.IntN(4) {
			if i > 0 {
				g.b = append(g.b, ',')
			}
			g.value(depth + 1)
		}
		g.space()
		g.b = append(g.b, ']')
	case 2, 3:
		g.str()
	case 4, 5:
		p := rawNumbers[g.r.IntN(len(rawNumbers))]
		if g.r.IntN(3) > 0 {
			p = rawNumbers[g.r.IntN(8)]
		}
		g.b = append(g.b, p.text...)
		g.kept = g.kept && p.kept
	case 6:
		g.b = append(g.b, []string{"true", "false", "null"}[g.r.IntN(3)]...)
	case 7:
		g.b = append(g.b, []string{"tru", "nul", "fals", "True"}[g.r.IntN(4)]...)
		g.kept = false
	}
	g.space()
}

// checkVerbatim holds Verbatim to encoding/json: what it accepts, json.Marshal writes as it is.
func checkVerbatim(t *testing.T, raw []byte) {
	t.Helper()
	if !Verbatim(raw) {
		return
	}
	got, err := json.Marshal(json.RawMessage(raw))
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("Verbatim(%q), but encoding/json writes %q, %v", raw, got, err)
	}
}

// TestVerbatimAgreesWithEncodingJSON builds random JSON texts, some with whitespace, escapes,
// characters encoding/json escapes, invalid UTF-8 or broken tokens, some cut or with a byte
// changed: what Verbatim accepts, encoding/json writes as it is, and every text built only of what
// encoding/json keeps is accepted.
func TestVerbatimAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for range 20000 {
		g := rawJSON{r: r, kept: true}
		g.value(0)
		raw := g.b
		switch r.IntN(8) {
		case 0:
			raw = raw[:r.IntN(len(raw)+1)]
			g.kept = false
		case 1:
			raw = bytes.Clone(raw)
			const swaps = "{}[],:\"\\ 0a-\x00\xc3"
			raw[r.IntN(len(raw))] = swaps[r.IntN(len(swaps))]
			g.kept = false
		}
		checkVerbatim(t, raw)
		if g.kept && !Verbatim(raw) {
			t.Fatalf("Verbatim(%q) = false, but encoding/json writes it as it is", raw)
		}
		if Verbatim(raw) {
			accepted++
		}
	}
	if accepted < 5000 {
		t.Fatalf("only %d of 20000 texts accepted: the test no longer tells much", accepted)
	}
}

// TestVerbatimDepth accepts nesting up to 1024 levels and leaves deeper values to encoding/json.
func TestVerbatimDepth(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{1, 63, 64, 65, 1024, 1025, 10001} {
		arrays := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		objects := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
		inner := "1"
		if depth%2 == 1 {
			inner = "[]"
		}
		mixed := strings.Repeat(`[{"a":`, depth/2) + inner + strings.Repeat("}]", depth/2)
		for _, raw := range []string{arrays, objects, mixed} {
			if got, want := Verbatim([]byte(raw)), depth <= 1024; got != want {
				t.Errorf("Verbatim at depth %d (%.12s...) = %v, want %v", depth, raw, got, want)
			}
			checkVerbatim(t, []byte(raw))
		}
	}
	if Verbatim([]byte(`[{"a":1]}`)) || Verbatim([]byte(`{"a":[1}]`)) {
		t.Error("Verbatim accepts a container closed by the other kind's bracket")
	}
}

// FuzzVerbatim holds Verbatim to encoding/json on any bytes.
func FuzzVerbatim(f *testing.F) {
	for _, s := range []string{`{"type":"object","properties":{"a":{"type":"string"}}}`, `[1,-2.5e3,true,null]`, `{"a" :1}`, `"<b>"`, "\"\u2028\"", `"\ud800"`, "\"\xff\"", `01`, `{}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkVerbatim(t, raw)
	})
}

// TestHTMLStringAgreesWithEncodingJSON writes random strings byte for byte as json.Marshal does.
func TestHTMLStringAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "plain text ", "é", "日本", "🙂", "<", ">", "&", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "\xff", "\xe2", "\xed\xa0\x80", "\xf0\x9f"}
	for range 20000 {
		var s strings.Builder
		for range r.IntN(12) {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkHTMLString(t, s.String())
	}
}

func checkHTMLString(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := HTMLString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
		t.Fatalf("HTMLString(%q) = %q, encoding/json writes %q", s, got[1:], want)
	}
}

// FuzzHTMLString holds HTMLString to json.Marshal, byte for byte, on any string.
func FuzzHTMLString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "\b\f\x00\x7f", "\u2028\xff\xe2<"} {
		f.Add(s)
	}
	f.Fuzz(checkHTMLString)
}

// TestRawPlainPrefix puts each byte value at each place of a word of plain bytes, and of bytes
// that borrow in the word-at-a-time search, and holds the count to a byte-by-byte one.
func TestRawPlainPrefix(t *testing.T) {
	t.Parallel()
	for _, fill := range []string{"abcdefgh", "        ", "!#~~~~~~", "\x1f\x00\"\\\x7f\x80\xff\x20", "=;?%'<>&", "\x21\x27\x3b\x3d\x3f\x25\x3c\x3e"} {
		for c := range 256 {
			for pos := range 8 {
				w := []byte(fill)
				w[pos] = byte(c)
				want := 0
				for want < 8 && w[want] < utf8.RuneSelf && rawPlain[w[want]] {
					want++
				}
				if got := rawPlainPrefix(binary.LittleEndian.Uint64(w)); got != want {
					t.Fatalf("rawPlainPrefix(%q) = %d, want %d", w, got, want)
				}
			}
		}
	}
}
