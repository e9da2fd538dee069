package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The scanner's primitives, one by one, and its differential fuzz targets: Unquote and skip are
// held to encoding/json.

// decodeCase is a text for a decoder, and whether the decoder leaves it to encoding/json.
type decodeCase struct {
	text     string
	declined bool
}

// checkCases runs check, which decodes a text both ways and reports how they differ, on each case.
func checkCases(t *testing.T, check func([]byte) (declined bool, diff string), cases []decodeCase) {
	t.Helper()
	for _, c := range cases {
		declined, diff := check([]byte(c.text))
		if declined != c.declined {
			t.Errorf("declined = %v, want %v, for %s", declined, c.declined, c.text)
		}
		if diff != "" {
			t.Errorf("%s: differs from encoding/json (-json +decoder):\n%s", c.text, diff)
		}
	}
}

// diffOf describes how a decoder's result differs from encoding/json's, empty lists and nil being
// alike; reflect.DeepEqual first, as cmp.Diff is slow for a fuzz target's every input.
func diffOf[T any](want, got T) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}

// TestPlainRun compares the eight-bytes-at-a-time search with a byte-by-byte one on random text
// made of the bytes that matter: quotes, backslashes, control bytes, the edges of ASCII.
func TestPlainRun(t *testing.T) {
	t.Parallel()
	alphabet := []byte{'a', ' ', '~', '"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) > 0 {
				b[i] = 'a' // long plain runs, so the word-at-a-time loop has work
			}
		}
		from := rng.IntN(len(b) + 1)
		want := from
		for want < len(b) && plain[b[want]] {
			want++
		}
		if got := plainRun(b, from); got != want {
			t.Fatalf("plainRun(%q, %d) = %d, want %d", b, from, got, want)
		}
	}
}

func TestStr(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{`"plain"`, "plain", true},
		{`""`, "", true},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t", true},
		{`"\u00e9\u65e5 é \ud83d\ude42"`, "é日 é 🙂", true},
		{`  "after space"`, "after space", true},
		{`"\ud800"`, "", false},        // a lone surrogate: encoding/json versions differ
		{`"\ud800\u0041"`, "", false},  // a high surrogate without its low half
		{"\"\xff\"", "", false},        // invalid UTF-8
		{"\"tab\tinside\"", "", false}, // a control character
		{`"\x"`, "", false},
		{`"\u12"`, "", false},
		{`"open`, "", false},
		{`plain`, "", false},
	} {
		s := scanner{b: []byte(tt.in)}
		got, ok := s.str()
		if ok != tt.ok || (ok && string(got) != tt.want) {
			t.Errorf("str(%s) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && !s.end() {
			t.Errorf("str(%s) stopped at %d of %d", tt.in, s.i, len(tt.in))
		}
	}
}

// TestStrAliasesInput checks that a string without escapes is a view of the input, and one with
// escapes a copy in the scanner's buffer that later strings do not overwrite.
func TestStrAliasesInput(t *testing.T) {
	t.Parallel()
	in := []byte(`"plain" "esc\naped" "more\ttext"`)
	s := scanner{b: in}
	first, _ := s.str()
	second, _ := s.str()
	third, _ := s.str()
	if &first[0] != &in[1] {
		t.Error("a plain string is not a view of the input")
	}
	if string(second) != "esc\naped" || string(third) != "more\ttext" {
		t.Errorf("unescaped %q, %q", second, third)
	}
}

func TestInteger(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		max  int
		want int64
		ok   bool
	}{
		{"0", 9, 0, true},
		{"1731000000", 18, 1731000000, true},
		{"-42", 9, -42, true},
		{" 7", 9, 7, true},
		{"01", 9, 0, false},
		{"1.5", 9, 0, false},
		{"1e3", 9, 0, false},
		{"12345", 4, 0, false},
		{"-", 9, 0, false},
		{"x", 9, 0, false},
	} {
		s := scanner{b: []byte(tt.in)}
		got, ok := s.integer(tt.max)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("integer(%q, %d) = %d, %v; want %d, %v", tt.in, tt.max, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSkip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{`{"a":[1,-2.5e+3,true,false,null,"s",{}],"b":{"c":[]}}`, true},
		{`0`, true},
		{`-0.5E-7`, true},
		{`"x"`, true},
		{`[ 1 , 2 ]`, true},
		{`01`, true}, // skip stops after 0; the caller's end() or next token refuses the rest
		{`1.`, false},
		{`-`, false},
		{`.5`, false},
		{`tru`, false},
		{`{"a" 1}`, false},
		{`[1,]`, false},
		{`{"a":1,}`, false},
		{`{1:2}`, false},
		{string(make([]byte, 0)), false},
	} {
		s := scanner{b: []byte(tt.in)}
		if ok := s.skip(0); ok != tt.ok {
			t.Errorf("skip(%s) = %v, want %v", tt.in, ok, tt.ok)
		}
	}
	deep := make([]byte, 0, 2*maxDepth+4)
	for range maxDepth + 2 {
		deep = append(deep, '[')
	}
	for range maxDepth + 2 {
		deep = append(deep, ']')
	}
	if s := (scanner{b: deep}); s.skip(0) {
		t.Errorf("skip took %d levels of nesting, more than maxDepth", maxDepth+2)
	}
}

func TestResembles(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		key, name string
		want      bool
	}{
		{"delta", "delta", true},
		{"Delta", "delta", true},
		{"FINISH_REASON", "finish_reason", true},
		{"finishreason", "finish_reason", true},
		{"finish-reason", "finish_reason", true},
		{"_id_", "id", true},
		{"ıd", "id", true}, // non-ASCII: Unicode folding has surprises, so it resembles everything
		{"ids", "id", false},
		{"x_vendor", "id", false},
		{"", "id", false},
	} {
		if got := resembles([]byte(tt.key), tt.name); got != tt.want {
			t.Errorf("resembles(%q, %q) = %v, want %v", tt.key, tt.name, got, tt.want)
		}
	}
}

// TestUnknown checks that a key resembling a known one is declined, and any other skipped.
func TestUnknown(t *testing.T) {
	t.Parallel()
	known := []string{"content", "role"}
	s := scanner{b: []byte(`{"x":1}`)}
	if !s.unknown([]byte("x_vendor"), known) || s.i != len(s.b) {
		t.Errorf("an unknown key's value was not skipped (at %d of %d)", s.i, len(s.b))
	}
	s = scanner{b: []byte(`"text"`)}
	if s.unknown([]byte("Content"), known) {
		t.Error("a key that encoding/json would match to content was skipped")
	}
}

func TestObjectAndArray(t *testing.T) {
	t.Parallel()
	s := scanner{b: []byte(` { "a" : [ 1 , 2 ] , "b" : [ ] } `)}
	var keys []string
	var items int
	ok := s.object(func(key []byte) bool {
		keys = append(keys, string(key))
		return s.array(func() bool {
			items++
			_, ok := s.integer(3)
			return ok
		})
	})
	s.ws()
	if !ok || !s.end() || len(keys) != 2 || items != 2 {
		t.Errorf("object = %v, end = %v, keys %q, %d items", ok, s.end(), keys, items)
	}
	for _, bad := range []string{`{"a":[1,]}`, `{"a":[1] "b":[]}`, `{"a":[1]`, `null`} {
		s := scanner{b: []byte(bad)}
		if s.object(func([]byte) bool { return s.array(func() bool { _, ok := s.integer(3); return ok }) }) {
			t.Errorf("object(%s) took it", bad)
		}
	}
}

// FuzzUnquote holds Unquote to encoding/json: on every string encoding/json accepts, Unquote gives
// the same text, or declines when the string has a surrogate escape or invalid UTF-8 (on which
// encoding/json versions differ) or white space around it; it accepts nothing encoding/json
// refuses.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u65e5\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", "\"\xed\xa0\x80\"", `"\u2028"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := Unquote([]byte(raw))
		var want string
		err := json.Unmarshal([]byte(raw), &want)
		switch {
		case !ok && err == nil && raw[0] == '"' && raw[len(raw)-1] == '"' && utf8.ValidString(raw) && !surrogateEscape.MatchString(raw):
			t.Fatalf("Unquote declined %q, which encoding/json reads as %q", raw, want)
		case !ok:
		case err != nil:
			t.Fatalf("Unquote(%q) = %q, but encoding/json refuses it: %v", raw, got, err)
		case got != want:
			t.Fatalf("Unquote(%q) = %q; encoding/json gives %q", raw, got, want)
		}
		if ok && utf8.ValidString(raw) && !utf8.ValidString(got) {
			t.Fatalf("Unquote(%q) = %q, invalid UTF-8", raw, got)
		}
	})
}

// surrogateEscape finds what may be a \uD800-\uDFFF escape.
var surrogateEscape = regexp.MustCompile(`(?i)\\ud[89a-f]`)

// FuzzSkip holds skip to encoding/json: a value it skips whole is valid JSON.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e+3,true,false,null,"s",{}]}`, `[]`, `"\u00e9"`, `-0`, `1e5`, `{"a" 1}`, `[1,]`, `01`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		s := scanner{b: []byte(raw)}
		ok := s.skip(0)
		s.ws()
		if ok && s.end() && !json.Valid([]byte(raw)) {
			t.Fatalf("skip took %q whole, which is not valid JSON", raw)
		}
	})
}

// TestFields checks that Fields hands over each key and its value's text as encoding/json's decoder
// reads them, and declines what is not one object.
func TestFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{`{}`, true},
		{` { "a" : [1, {"b":"\u00e9"}] , "\u0041":null,"a":"x" } `, true},
		{`{"a":1,}`, false},
		{`{"a":1} x`, false},
		{`[1]`, false},
		{`{"a":"\ud800"}`, false},
	} {
		var got []string
		ok := Fields([]byte(c.text), func(key, value []byte) { got = append(got, string(key), compactValue(value)) })
		if ok != c.ok {
			t.Errorf("%s: ok = %v, want %v", c.text, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := refFields([]byte(strings.TrimSpace(c.text)), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if diff := diffOf(want, got); diff != "" {
			t.Errorf("%s: differs from encoding/json (-json +Fields):\n%s", c.text, diff)
		}
	}
}

// FuzzFields holds Fields to encoding/json: what it accepts, encoding/json's decoder reads as the
// same keys and values, and what encoding/json reads as an object of plain text Fields accepts.
func FuzzFields(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":[1,{"b":"\u00e9"}],"a":null}`, `{"x":{"y":[true,false,-1.5e3]}} `, `{"\u0041":"\"<&>"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []string
		ok := Fields(b, func(key, value []byte) { got = append(got, string(key), compactValue(value)) })
		var obj map[string]json.RawMessage
		valid := json.Unmarshal(b, &obj) == nil && obj != nil
		if ok && !valid {
			t.Fatalf("%q: accepted, but encoding/json reads no object", b)
		}
		if !ok {
			if valid && utf8.Valid(b) && !strings.Contains(string(b), `\u`) && !strings.Contains(string(b), `\U`) && len(b) < 64 {
				t.Fatalf("%q: declined an object of plain text", b)
			}
			return
		}
		want, err := refFields([]byte(strings.TrimSpace(string(b))), nil)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if diff := diffOf(want, got); diff != "" {
			t.Fatalf("%q: differs from encoding/json (-json +Fields):\n%s", b, diff)
		}
	})
}
