package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// decodeTexts reads a JSON array of strings with texts, as DecodeCompletion reads its strings: all
// of them into one buffer.
func decodeTexts(b []byte) ([]string, bool) {
	s := scanner{b: b}
	t := newTexts(len(b))
	var out []string
	ok := s.array(func() bool {
		out = append(out, "")
		return s.text(&t, &out[len(out)-1])
	})
	s.ws()
	return out, ok && s.end()
}

// checkTexts reports how decodeTexts and encoding/json differ on b, when decodeTexts accepts it.
func checkTexts(t *testing.T, b []byte) (declined bool) {
	t.Helper()
	got, ok := decodeTexts(b)
	if !ok {
		return true
	}
	var want []string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%q: accepted, but encoding/json refuses it: %v", b, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%q: got %q, encoding/json reads %q", b, got, want)
	}
	return false
}

func TestTextAgreesWithUnquote(t *testing.T) {
	t.Parallel()
	for _, lit := range []string{
		`""`, `"a"`, `"plain text longer than one word"`, `"\"quoted\" and\na newline"`,
		`"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9\u4e16\ud83d\ude00"`, `"é世😀 mixed with ASCII, past eight bytes"`,
		`"12345678"`, `"1234567\n"`, `"\n12345678"`,
		// declined, as the scanner declines them
		`"\ud83d"`, `"\ude00 lone low"`, `"\ud83d\u0041"`, `"\x"`, `"\u12"`, `"tab	inside"`,
		"\"bad \xff utf-8\"", "\"cut \xe4\xb8\"", `"unterminated`, `"ends in backslash\`, `"`,
	} {
		want, wantOK := Unquote([]byte(lit))
		got, ok := decodeTexts([]byte("[" + lit + "]"))
		if ok != wantOK || ok && got[0] != want {
			t.Errorf("%s: texts read %q (ok %v), Unquote %q (ok %v)", lit, got, ok, want, wantOK)
		}
	}
}

// TestTextEveryByteEveryPosition puts each byte value at each place of a word, after and before
// others that borrow or carry in the word-at-a-time search, and holds the result to Unquote.
func TestTextEveryByteEveryPosition(t *testing.T) {
	t.Parallel()
	for _, fill := range []string{"abcdefghijklmnop", `\u00e9\n ~!#[]{}\\x`, "éé世\x7f~abcd"} {
		for c := range 256 {
			for pos := range 9 {
				lit := []byte(`"` + fill[:pos] + string(rune(0)) + fill[pos:] + `"`)
				lit[1+pos] = byte(c)
				want, wantOK := Unquote(lit)
				got, ok := decodeTexts(append(append([]byte("["), lit...), ']'))
				if ok != wantOK || ok && got[0] != want {
					t.Fatalf("%q: texts read %q (ok %v), Unquote %q (ok %v)", lit, got, ok, want, wantOK)
				}
			}
		}
	}
}

// TestTextEscapesInEveryPlace puts two escapes at every place of a few words, among characters of
// several bytes, whole or cut in two by an escape, and holds the result to Unquote: escapes are
// written inside the word-at-a-time loop, and the text checked as UTF-8 once at its end.
func TestTextEscapesInEveryPlace(t *testing.T) {
	t.Parallel()
	escapes := []string{`\"`, `\\`, `\/`, `\n`, `\u00e9`, `\ud83d\ude00`, `\q`, `\u12`, "\\\x01"}
	for _, fill := range []string{"abcdefghijklmnopqrstuvwx", "éé世界😀abcdefghijklmn", "a\x7fb\xffcdefghijklmnopqr"} {
		for _, esc := range escapes {
			for pos := range min(18, len(fill)) {
				for second := pos; second <= min(pos+10, len(fill)); second++ {
					lit := []byte(`"` + fill[:pos] + esc + fill[pos:second] + esc + fill[second:] + `"`)
					want, wantOK := Unquote(lit)
					got, ok := decodeTexts(append(append([]byte("["), lit...), ']'))
					if ok != wantOK || ok && got[0] != want {
						t.Fatalf("%q: texts read %q (ok %v), Unquote %q (ok %v)", lit, got, ok, want, wantOK)
					}
				}
			}
		}
	}
}

// TestTextKeepsEarlierStrings decodes many strings into one buffer: each string written must leave
// those before it as they were, though runs are stored eight bytes at a time.
func TestTextKeepsEarlierStrings(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20261126, 1))
	pieces := []string{"a", "bc", "quoted \"x\"", "\n", "\\", "é", "世界", "😀", "\u2028", "\t", "12345678", "/", "\u0001"}
	for range 300 {
		strs := make([]string, rng.IntN(12))
		for i := range strs {
			var sb strings.Builder
			for range rng.IntN(20) {
				sb.WriteString(pieces[rng.IntN(len(pieces))])
			}
			strs[i] = sb.String()
		}
		b, err := json.Marshal(strs)
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			// Spell some characters as \u escapes, which encoding/json does not write.
			b = []byte(strings.NewReplacer("é", `\u00e9`, "😀", `\ud83d\ude00`, `\n`, `\u000a`).Replace(string(b)))
		}
		if checkTexts(t, b) {
			t.Fatalf("%s: declined, though every string is valid", b)
		}
	}
}

func TestTextRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	b := []byte(`"abc"`)
	if _, _, ok := unescapeInto(make([]byte, 2), 0, b, 1); ok {
		t.Error("accepted a buffer shorter than the input")
	}
	if _, _, ok := unescapeInto(make([]byte, 10), 3, b, 1); ok {
		t.Error("accepted a start in the buffer past the start in the input")
	}
}

// FuzzText holds the strings of one buffer to encoding/json: whatever decodeTexts accepts,
// encoding/json reads the same way, and a single string is accepted exactly when Unquote accepts it.
func FuzzText(f *testing.F) {
	for _, seed := range []string{`["a","b\n\"c\"","\u00e9\ud83d\ude00"]`, `[""]`, `["12345678","é世"]`, "[\"\xff\"]", `["\ud83d"]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkTexts(t, b)
		if want, wantOK := Unquote(b); wantOK {
			got, ok := decodeTexts(append(append([]byte("["), b...), ']'))
			if !ok || got[0] != want {
				t.Fatalf("%q: Unquote reads %q, texts %q (ok %v)", b, want, got, ok)
			}
		}
	})
}

// BenchmarkUnescape50KB unescapes one string of 50 KB: a tool call's arguments, JSON inside a
// JSON string, whose every quote is escaped (a byte in five), and plain text with no escape.
func BenchmarkUnescape50KB(b *testing.B) {
	escaped, _ := json.Marshal(toolCallArguments(50_000))
	plain, _ := json.Marshal(strings.Repeat("Plain text of a paragraph, without a character to escape. ", 50_000/59+1))
	for _, bench := range []struct {
		name string
		lit  []byte
	}{{"escaped", escaped}, {"plain", plain}} {
		b.Run(bench.name, func(b *testing.B) {
			dst := make([]byte, len(bench.lit))
			b.SetBytes(int64(len(bench.lit)))
			for b.Loop() {
				if _, _, ok := unescapeInto(dst, 0, bench.lit, 1); !ok {
					b.Fatal("declined")
				}
			}
		})
	}
}
