package partialjson

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree builds the value the events describe, as encoding/json decodes into an any.
type tree struct {
	stack  []any // *[]any or map[string]any
	keys   []string
	str    []byte
	result any
	bad    bool // a number encoding/json cannot hold in a float64
}

func (t *tree) put(v any) {
	if len(t.stack) == 0 {
		t.result = v
		return
	}
	switch c := t.stack[len(t.stack)-1].(type) {
	case *[]any:
		*c = append(*c, v)
	case map[string]any:
		c[t.keys[len(t.keys)-1]] = v
	}
}

func (t *tree) BeginObject(int) {
	t.stack = append(t.stack, map[string]any{})
	t.keys = append(t.keys, "")
}
func (t *tree) BeginArray(int) { t.stack = append(t.stack, &[]any{}); t.keys = append(t.keys, "") }
func (t *tree) Key(k []byte)   { t.keys[len(t.keys)-1] = string(k) }
func (t *tree) End(int) {
	top := t.stack[len(t.stack)-1]
	t.stack, t.keys = t.stack[:len(t.stack)-1], t.keys[:len(t.keys)-1]
	if s, ok := top.(*[]any); ok {
		top = *s
	}
	t.put(top)
}
func (t *tree) BeginString(int)     { t.str = t.str[:0] }
func (t *tree) StringPart(p []byte) { t.str = append(t.str, p...) }
func (t *tree) EndString(int)       { t.put(string(t.str)) }
func (t *tree) BeginLiteral(int)    {}
func (t *tree) Literal(b []byte, _ int) {
	switch string(b) {
	case "true", "false":
		t.put(string(b) == "true")
	case "null":
		t.put(nil)
	default:
		f, err := strconv.ParseFloat(string(b), 64)
		t.bad = t.bad || err != nil
		t.put(f)
	}
}

// parseInPieces parses text cut at the given offsets, each other piece written as a string.
func parseInPieces(text []byte, cuts []int) (*tree, error) {
	tr := &tree{}
	p := New(tr)
	last := 0
	for i, c := range cuts {
		write := p.Write
		if i%2 == 1 {
			write = func(piece []byte) error { return p.WriteString(string(piece)) }
		}
		if err := write(text[last:c]); err != nil {
			return tr, err
		}
		last = c
	}
	if err := p.Write(text[last:]); err != nil {
		return tr, err
	}
	return tr, p.Close()
}

// checkAgainstEncodingJSON is the parser's contract: it accepts exactly the texts encoding/json
// accepts, however they are cut, and the value it describes is encoding/json's.
func checkAgainstEncodingJSON(t *testing.T, text []byte, cuts []int) {
	t.Helper()
	tr, err := parseInPieces(text, cuts)
	if valid := json.Valid(text); valid != (err == nil) {
		t.Fatalf("%q cut at %v: json.Valid %v, parser error %v", text, cuts, valid, err)
	}
	if err != nil {
		return
	}
	var want any
	if json.Unmarshal(text, &want) != nil || tr.bad {
		return
	}
	if diff := cmp.Diff(want, tr.result); diff != "" {
		t.Fatalf("%q cut at %v (-encoding/json +parser):\n%s", text, cuts, diff)
	}
}

var parserCases = []string{
	`{}`, `[]`, `0`, `-0.5e+10`, `true`, `null`, `"a"`, ` {"a" : [1, 2.5, "x", null, true, false, {}, []]} `,
	`{"esc":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\udc00\u0041"}`, `"héllo wörld 日本 😀"`,
	`{"a":{"b":{"c":[[[]]]}}}`, `{"dup":1,"dup":2}`, `[1e400]`, "\"\xff\xfe ok\"", `"\ud83d"`, `"\ud83d\u0041"`,
	// Not JSON.
	``, `{`, `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `truex`, `nul`, `"\x"`,
	`"\u12g4"`, "\"a\x01\"", `{"a":1}x`, `[1 2]`, `{"a":1,}`, `]`, `{]`, `[}`, `"abc`, `{"a":"b"`, `1 1`,
	`{1:2}`, `[-]`, `[+1]`, `"\`, `"\u00`, `{"a" 1}`,
}

func TestParserMatchesEncodingJSONAtEveryCut(t *testing.T) {
	t.Parallel()
	for _, c := range parserCases {
		text := []byte(c)
		checkAgainstEncodingJSON(t, text, nil)
		for i := 0; i <= len(text); i++ {
			checkAgainstEncodingJSON(t, text, []int{i})
		}
		every := make([]int, len(text))
		for i := range every {
			every[i] = i
		}
		checkAgainstEncodingJSON(t, text, every)
	}
}

func TestParserRejectsDeepNesting(t *testing.T) {
	t.Parallel()
	text := make([]byte, MaxDepth+1)
	for i := range text {
		text[i] = '['
	}
	p := New(&tree{})
	if err := p.Write(text); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("error %v, want ErrTooDeep", err)
	}
	if err := p.Write([]byte("]")); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("a failed parser must stay failed, got %v", err)
	}
}

func TestParserReportsIncompleteText(t *testing.T) {
	t.Parallel()
	p := New(&tree{})
	if err := p.Write([]byte(`{"a":[1,"x`)); err != nil {
		t.Fatal(err)
	}
	if p.Done() {
		t.Fatal("an open object is not done")
	}
	if p.Offset() != len(`{"a":[1,"x`) {
		t.Fatalf("offset %d", p.Offset())
	}
	if err := p.Close(); err == nil {
		t.Fatal("Close accepted an incomplete value")
	}
	var se *SyntaxError
	q := New(&tree{})
	if err := q.Write([]byte(`[1,,`)); !errors.As(err, &se) || se.Offset != 3 {
		t.Fatalf("error %v, want a *SyntaxError at offset 3", err)
	}
}

// FuzzParser: on any text the parser never panics, accepts what encoding/json accepts, and
// describes the value encoding/json decodes, whether the text comes whole, byte by byte or cut
// at random places.
func FuzzParser(f *testing.F) {
	for _, c := range parserCases {
		f.Add([]byte(c), uint64(1))
	}
	f.Fuzz(func(t *testing.T, text []byte, seed uint64) {
		checkAgainstEncodingJSON(t, text, nil)
		rng := rand.New(rand.NewPCG(seed, 7))
		var cuts []int
		for i := 0; i < len(text); i += 1 + rng.IntN(8) {
			cuts = append(cuts, i)
		}
		checkAgainstEncodingJSON(t, text, cuts)
	})
}
