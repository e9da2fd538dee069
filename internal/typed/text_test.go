package typed

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// textTypes are the kinds of value FuzzFirstJSON looks for.
var textTypes = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[float64](), reflect.TypeFor[bool](),
	reflect.TypeFor[any](), reflect.TypeFor[[]int](), reflect.TypeFor[struct {
		A string `json:"a"`
	}](), reflect.TypeFor[*int](),
}

// feedText feeds text to a text tracker in pieces cut at cuts and ends it, as a streamed turn
// does; it returns the partials shown.
func feedText(t reflect.Type, text string, cuts []int) (partials []any, last reflect.Value) {
	root := reflect.New(t).Elem()
	v := NewTextValue(root, schemaOfType(t))
	at := 0
	for _, cut := range append(cuts, len(text)) {
		if cut < at || cut > len(text) {
			continue
		}
		if v.Write(text[at:cut]) {
			partials = append(partials, clone(root))
		}
		at = cut
	}
	if v.Finish() {
		partials = append(partials, clone(root))
	}
	return partials, root
}

func clone(v reflect.Value) any {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c.Interface()
}

// FuzzFirstJSON reads any text as an answer: finding its value never panics, what it finds is JSON
// of a kind the type admits taken from the text, and a stream of the same text, cut anywhere, ends
// showing the value the whole text gives.
func FuzzFirstJSON(f *testing.F) {
	for _, seed := range []string{`"Paris"`, `42`, ` -7 apples`, "```json\ntrue\n```", `The answer is 42.`,
		`<think>{"a":"x"}</think>{"a":"y"} and {"a":"z"}`, `"a" and "b"`, `[1,2] or [3]`, `null`, `<thi`,
		`"unclosed`, `1e5`, `{"a":"\u00e9"}`, "v2 item-3 1.2.3 4.", `"x"` + "\n```\n\"y\"\n```"} {
		for i := range textTypes {
			f.Add(uint8(i), seed, uint64(i))
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, text string, seed uint64) {
		typ := textTypes[int(kind)%len(textTypes)]
		raw, err := FirstJSON(text, schemaOfType(typ))
		if err == nil {
			k := kindsOf(schemaOfType(typ))
			if !json.Valid(raw) || !k.starts(raw[0]) || !bytes.Contains([]byte(withoutThinking([]byte(text))), raw) && !strings.Contains(text, string(raw)) {
				t.Fatalf("%v in %q: found %q", typ, text, raw)
			}
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		var cuts []int
		for i := rng.IntN(4); i < len(text); i += 1 + rng.IntN(6) {
			cuts = append(cuts, i)
		}
		_, last := feedText(typ, text, cuts)
		if err != nil {
			return
		}
		want := reflect.New(typ)
		if json.Unmarshal(raw, want.Interface()) != nil {
			return
		}
		if !cmp.Equal(want.Elem().Interface(), last.Interface()) {
			t.Fatalf("%v in %q cut at %v: the stream ends at %#v, the text gives %#v", typ, text, cuts, last.Interface(), want.Elem().Interface())
		}
	})
}

// TestStreamedStringNeverContradicts streams a string value followed by prose, cut at random: every
// partial is a prefix of the value the whole text gives.
func TestStreamedStringNeverContradicts(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	runes := []rune(`ab "\{}[]42` + "\n日")
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		value, _ := json.Marshal(b.String())
		text := []string{"", "<think>\"no\" 7</think>", "  "}[rng.IntN(3)] + string(value) + []string{"", " is it", " or \"other\".", "\n```\n\"x\"\n```"}[rng.IntN(4)]
		var cuts []int
		for i := rng.IntN(3); i < len(text); i += 1 + rng.IntN(5) {
			cuts = append(cuts, i)
		}
		partials, last := feedText(reflect.TypeFor[string](), text, cuts)
		if last.String() != b.String() {
			t.Fatalf("%q: ended at %q, want %q", text, last.String(), b.String())
		}
		for _, p := range partials {
			if !strings.HasPrefix(b.String(), p.(string)) {
				t.Fatalf("%q cut at %v: partial %q contradicts %q", text, cuts, p, b.String())
			}
		}
	}
}

// schemaOfType is the schema jsonschema-go derives for t, whose root kinds are the SDK's.
func schemaOfType(t reflect.Type) *jsonschema.Schema {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic(err)
	}
	return s
}
