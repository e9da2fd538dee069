package quota

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// golden holds what Python itself computed (testdata/golden.py): repr() lengths, and the gateway's
// estimates of request bodies computed with its own expression over the messages as it dumps them.
type golden struct {
	Repr []struct {
		S   string `json:"s"`
		Len int    `json:"len"`
	} `json:"repr"`
	Chat []struct {
		Body     string `json:"body"`
		Estimate int    `json:"estimate"`
	} `json:"chat"`
	Embeddings []struct {
		Body     string `json:"body"`
		Estimate int    `json:"estimate"`
	} `json:"embeddings"`
	Floats []struct {
		Text string `json:"text"`
		Len  int    `json:"len"`
	} `json:"floats"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Repr) == 0 || len(g.Chat) == 0 || len(g.Embeddings) == 0 || len(g.Floats) == 0 {
		t.Fatal("golden.json has an empty section")
	}
	return g
}

func TestGoldenFromPython(t *testing.T) {
	t.Parallel()
	g := readGolden(t)
	for _, c := range g.Repr {
		if got := ReprLen(c.S); got != c.Len {
			t.Errorf("ReprLen(%+q) = %d, Python says %d", c.S, got, c.Len)
		}
	}
	for _, c := range g.Chat {
		if got, err := ChatEstimate([]byte(c.Body)); err != nil || got != c.Estimate {
			t.Errorf("ChatEstimate(%s) = %d, %v; Python says %d", c.Body, got, err, c.Estimate)
		}
	}
	for _, c := range g.Embeddings {
		if got, err := EmbeddingsEstimate([]byte(c.Body)); err != nil || got != c.Estimate {
			t.Errorf("EmbeddingsEstimate(%s) = %d, %v; Python says %d", c.Body, got, err, c.Estimate)
		}
	}
	for _, c := range g.Floats {
		if got := numberReprLen(c.Text); got != c.Len {
			t.Errorf("numberReprLen(%s) = %d, Python says %d", c.Text, got, c.Len)
		}
	}
}

// pythonRepr is an independent writing of Python's repr() of a str (Objects/unicodeobject.c,
// unicode_repr), building the text itself rather than counting.
func pythonRepr(s string) string {
	quote := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = `"`
	}
	var b strings.Builder
	b.WriteString(quote)
	for _, r := range s {
		switch {
		case string(r) == quote || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case !pythonPrintable(r) && r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !pythonPrintable(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case !pythonPrintable(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(quote)
	return b.String()
}

// pythonPrintable is str.isprintable() of one character: not in the "Other" categories (Cc, Cf,
// Cs, Co, Cn) nor the "Separator" ones (Zl, Zp, Zs), but for the ASCII space.
func pythonPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) {
		return false
	}
	assigned := unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
	return assigned // unassigned (Cn) is in none of the tables
}

// runePool mixes the characters repr treats apart with random ones from the whole range.
var runePool = []rune{'a', ' ', '\'', '"', '\\', '\t', '\n', '\r', 0, 0x1b, 0x7f, 0x80, 0x9f,
	0xa0, 0xad, 'é', 0x301, 0x200b, 0x2028, 0x3000, 0xe000, 0xfeff, 0xffff, '中', 0x1f600,
	0xe0001, 0x10ffff, utf8.RuneError}

func randomString(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(40) {
		switch rng.IntN(4) {
		case 0:
			b.WriteRune(rune(rng.IntN(unicode.MaxRune + 1)))
		case 1:
			b.WriteByte(byte(rng.IntN(256))) // maybe not UTF-8
		default:
			b.WriteRune(runePool[rng.IntN(len(runePool))])
		}
	}
	return b.String()
}

func TestReprLenMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(44, 1))
	for range 20000 {
		s := randomString(rng)
		if got, want := ReprLen(s), utf8.RuneCountInString(pythonRepr(s)); got != want {
			t.Fatalf("ReprLen(%+q) = %d, reference repr %s is %d", s, got, pythonRepr(s), want)
		}
	}
}

// A content array's typed parts count what the same parts count when sent as JSON, which is what
// the gateway reads.
func TestPartsMatchTheirJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(44, 2))
	for range 3000 {
		var parts []Part
		var sent []any
		for range rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				p := Part{Type: "text", Text: randomString(rng)}
				parts = append(parts, p)
				sent = append(sent, map[string]any{"type": "text", "text": p.Text})
			case 1:
				p := Part{Type: "image_url", ImageURL: randomString(rng), Detail: []string{"", "low", "x'"}[rng.IntN(3)]}
				parts = append(parts, p)
				image := map[string]any{"url": p.ImageURL}
				if p.Detail != "" {
					image["detail"] = p.Detail
				}
				sent = append(sent, map[string]any{"type": "image_url", "image_url": image})
			default:
				data, _ := json.Marshal(randomString(rng))
				raw := fmt.Sprintf(`{"type":"input_audio","input_audio":{"data":%s,"format":"mp3","x":null}}`, data)
				parts = append(parts, Part{Type: "input_audio", JSON: []byte(raw)})
				sent = append(sent, json.RawMessage(raw))
			}
		}
		body, err := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": sent}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ChatEstimate(body)
		if want := Estimate(Parts(parts)); err != nil || got != want {
			t.Fatalf("ChatEstimate(%s) = %d, %v; Parts says %d", body, got, err, want)
		}
	}
}

func TestKnownCounts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		got  int
		want int
	}{
		{"text part", Parts([]Part{{Type: "text", Text: "hello"}}), 2 + 28 + 5},
		{"two parts", Parts([]Part{{Type: "text", Text: ""}, {Type: "image_url", ImageURL: "u"}}), 2 + 28 + 2 + 48},
		{"image detail", Parts([]Part{{Type: "image_url", ImageURL: "u", Detail: "low"}}), 2 + 48 + 12 + 5},
		{"empty array", Parts(nil), 2},
		{"code points", StringContent("héllo😀"), 6},
		{"estimate floor", Estimate(3), 1},
		{"estimate", Estimate(4001), 1000},
		{"embeddings join", EmbeddingsInput([]string{"ab", "cd", ""}), 6},
		{"embeddings none", EmbeddingsInput(nil), 0},
		{"unreadable part", Parts([]Part{{Type: "file", JSON: []byte("{")}}), 3},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{``, `[]`, `"x"`, `{`, `{"messages":[]} x`, strings.Repeat("[", 2000) + strings.Repeat("]", 2000)} {
		if _, err := ChatEstimate([]byte(body)); err == nil {
			t.Errorf("ChatEstimate(%.40s): no error", body)
		}
		if _, err := EmbeddingsEstimate([]byte(body)); err == nil {
			t.Errorf("EmbeddingsEstimate(%.40s): no error", body)
		}
	}
	// Odd but valid shapes count something and never fail.
	for _, body := range []string{`{}`, `{"messages":{}}`, `{"messages":[1,"x",null,{"content":7}]}`,
		`{"messages":[{"content":[1,{"type":"text"},{"type":"image_url","image_url":"u"}]}]}`} {
		if n, err := ChatEstimate([]byte(body)); err != nil || n < 1 {
			t.Errorf("ChatEstimate(%s) = %d, %v", body, n, err)
		}
	}
}

func FuzzEstimates(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"messages":[{"content":[{"type":"text","text":"a'b\n"},{"type":"image_url","image_url":{"url":"x","detail":null}}]}]}`))
	f.Add([]byte(`{"input":["a",1,2.5e300,[true,null],{"k":"v"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, estimate := range []func([]byte) (int, error){ChatEstimate, EmbeddingsEstimate} {
			if n, err := estimate(body); err == nil && n < 1 {
				t.Fatalf("estimate %d < 1", n)
			}
		}
		s := string(body)
		if got, want := ReprLen(s), utf8.RuneCountInString(pythonRepr(s)); got != want {
			t.Fatalf("ReprLen(%+q) = %d, reference %d", s, got, want)
		}
	})
}
