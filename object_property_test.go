package infergate

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go/internal/typed"
)

var (
	objectSeed  = flag.Uint64("object.seed", 20261124, "seed of the random values of TestPartialObjectProperty")
	objectCases = flag.Int("object.cases", 2, "how many random values TestPartialObjectProperty cuts at every byte")
)

type propLevel string

type propItem struct {
	Label string   `json:"label"`
	Score float64  `json:"score"`
	Tags  []string `json:"tags,omitempty"`
	Note  *string  `json:"note,omitempty"`
}

type propValue struct {
	Title  string            `json:"title"`
	Count  int               `json:"count"`
	Small  int8              `json:"small"`
	Ratio  float64           `json:"ratio"`
	OK     bool              `json:"ok"`
	Level  propLevel         `json:"level" enum:"low,medium,high"`
	When   time.Time         `json:"when"`
	Items  []propItem        `json:"items"`
	Ptr    *propItem         `json:"ptr,omitempty"`
	Attrs  map[string]string `json:"attrs,omitempty"`
	Matrix [][]int           `json:"matrix"`
	Pair   [2]string         `json:"pair"`
	Nested struct {
		Deep struct {
			Text string `json:"text"`
		} `json:"deep"`
	} `json:"nested"`
}

var propRunes = []rune("aZ09 _-\"\\/\n\t\r\x01\x1féü日本語😀\u2028\u2029<>&{}[]:,")

func genString(r *rand.Rand, max int) string {
	var b strings.Builder
	for range r.IntN(max + 1) {
		b.WriteRune(propRunes[r.IntN(len(propRunes))])
	}
	return b.String()
}

func genItem(r *rand.Rand) propItem {
	it := propItem{Label: genString(r, 12), Score: float64(r.IntN(2000)-1000) / 8}
	if r.IntN(2) == 0 {
		for range 1 + r.IntN(3) {
			it.Tags = append(it.Tags, genString(r, 6))
		}
	}
	if r.IntN(2) == 0 {
		note := genString(r, 20)
		it.Note = &note
	}
	return it
}

func genValue(r *rand.Rand) propValue {
	v := propValue{Title: genString(r, 40), Count: r.IntN(1 << 20), Small: int8(r.IntN(256) - 128),
		Ratio: r.NormFloat64() * 1e3, OK: r.IntN(2) == 0, Level: []propLevel{"low", "medium", "high"}[r.IntN(3)],
		When: time.Unix(r.Int64N(4e9), int64(r.IntN(1e9))).UTC()}
	for range r.IntN(5) {
		v.Items = append(v.Items, genItem(r))
	}
	if r.IntN(2) == 0 {
		it := genItem(r)
		v.Ptr = &it
	}
	if r.IntN(2) == 0 {
		v.Attrs = map[string]string{}
		for range 1 + r.IntN(4) {
			v.Attrs[genString(r, 5)] = genString(r, 10)
		}
	}
	for range r.IntN(3) {
		row := []int{}
		for range r.IntN(4) {
			row = append(row, r.IntN(200)-100)
		}
		v.Matrix = append(v.Matrix, row)
	}
	v.Pair = [2]string{genString(r, 5), genString(r, 5)}
	v.Nested.Deep.Text = genString(r, 30)
	return v
}

var timeType = reflect.TypeFor[time.Time]()

// consistent checks a partial against the final value: strings are prefixes, slices hold equal
// complete elements, maps equal entries, and anything else is either not there yet (zero) or equal.
func consistent(p, f reflect.Value, path string) error {
	if p.IsZero() {
		return nil
	}
	switch {
	case p.Type() == timeType: // compared whole below
	case p.Kind() == reflect.String:
		if !strings.HasPrefix(f.String(), p.String()) {
			return fmt.Errorf("%s: %q is not a prefix of %q", path, p.String(), f.String())
		}
		if p.Type() == reflect.TypeFor[propLevel]() && p.String() != f.String() {
			return fmt.Errorf("%s: enum shown before it was complete: %q", path, p.String())
		}
		return nil
	case p.Kind() == reflect.Struct || p.Kind() == reflect.Array:
		n := p.Len
		if p.Kind() == reflect.Struct {
			n = p.NumField
		}
		for i := range n() {
			var pe, fe reflect.Value
			if p.Kind() == reflect.Struct {
				pe, fe = p.Field(i), f.Field(i)
			} else {
				pe, fe = p.Index(i), f.Index(i)
			}
			if err := consistent(pe, fe, fmt.Sprintf("%s.%d", path, i)); err != nil {
				return err
			}
		}
		return nil
	case p.Kind() == reflect.Pointer:
		if f.IsNil() {
			return fmt.Errorf("%s: set in a partial, nil in the final value", path)
		}
		return consistent(p.Elem(), f.Elem(), path+".*")
	case p.Kind() == reflect.Slice:
		if p.Len() > f.Len() {
			return fmt.Errorf("%s: %d elements, the final value has %d", path, p.Len(), f.Len())
		}
		for i := range p.Len() {
			if !equalValues(p.Index(i).Interface(), f.Index(i).Interface()) {
				return fmt.Errorf("%s[%d]: incomplete element shown: %v, final %v", path, i, p.Index(i), f.Index(i))
			}
		}
		return nil
	case p.Kind() == reflect.Map:
		for _, k := range p.MapKeys() {
			fv := f.MapIndex(k)
			if !fv.IsValid() || !equalValues(p.MapIndex(k).Interface(), fv.Interface()) {
				return fmt.Errorf("%s[%v]: %v, final %v", path, k, p.MapIndex(k), fv)
			}
		}
		return nil
	}
	if !equalValues(p.Interface(), f.Interface()) {
		return fmt.Errorf("%s: %v, final %v", path, p, f)
	}
	return nil
}

// equalValues is cmp.Equal, asked only when reflect.DeepEqual, many times cheaper at every cut,
// finds the values apart (two times of one instant in two locations are equal to cmp alone).
func equalValues(a, b any) bool { return reflect.DeepEqual(a, b) || cmp.Equal(a, b) }

// feedObject streams text through a partial tracker cut at cuts, as tool-call arguments or as
// content, and checks every partial against want; it returns the last partial.
func feedObject(t *testing.T, text string, cuts []int, asCall bool, want propValue) propValue {
	t.Helper()
	return feedObjectChecked(t, text, cuts, asCall, func(_ int, partial propValue) error {
		return consistent(reflect.ValueOf(partial), reflect.ValueOf(want), "value")
	})
}

// feedObjectChecked is feedObject with its own check of each partial, given the length of the text
// it was made from.
func feedObjectChecked(t *testing.T, text string, cuts []int, asCall bool, check func(end int, partial propValue) error) propValue {
	t.Helper()
	var partial propValue
	mode := ObjectModePrompt
	if asCall {
		mode = ObjectModeAuto
	}
	run := &objectRun{spec: ObjectSpec{Name: "propValue"}, t: reflect.TypeFor[propValue]()}
	tr := newPartialTracker(reflect.ValueOf(&partial).Elem(), mode, run)
	if asCall {
		tr.add(&ChatCompletionChunk{Choices: []ChunkChoice{{Delta: Delta{ToolCalls: []ToolCallDelta{{ID: "c1", Function: FunctionCallDelta{Name: "propValue"}}}}}}})
	}
	last := 0
	for i := 0; i <= len(cuts); i++ {
		end := len(text)
		if i < len(cuts) {
			end = cuts[i]
		}
		piece := text[last:end]
		last = end
		var d Delta
		if asCall {
			d.ToolCalls = []ToolCallDelta{{Function: FunctionCallDelta{Arguments: piece}}}
		} else {
			d.Content = piece
		}
		if !tr.add(&ChatCompletionChunk{Choices: []ChunkChoice{{Delta: d}}}) {
			continue
		}
		if err := check(end, partial); err != nil {
			t.Fatalf("cut at %v, after %q: %v", cuts, text[:end], err)
		}
	}
	return partial
}

// TestPartialObjectProperty cuts the JSON of random values at every byte and at random fragment
// sizes, streams it as tool-call arguments and as content wrapped in thinking, a fence and prose,
// and checks that no partial contradicts the value, that the last partial is the value, and that
// the answer decodes to the value. Run more with -object.cases, another sequence with -object.seed.
func TestPartialObjectProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*objectSeed, 3))
	for range *objectCases {
		want := genValue(rng)
		raw, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		texts := map[bool]string{true: string(raw),
			false: "<think>plan: {\"title\": maybe}</think>Here you go:\n```json\n" + string(raw) + "\n```\nDone {ok}."}
		for _, asCall := range []bool{true, false} {
			text := texts[asCall]
			var cutSets [][]int
			for i := 1; i < len(text); i++ {
				cutSets = append(cutSets, []int{i})
			}
			for range 20 {
				var cuts []int
				for i := rng.IntN(9); i < len(text); i += 1 + rng.IntN(17) {
					cuts = append(cuts, i)
				}
				cutSets = append(cutSets, cuts)
			}
			for _, cuts := range cutSets {
				last := feedObject(t, text, cuts, asCall, want)
				if !equalValues(want, last) {
					t.Fatalf("last partial, cut at %v (-want +got):\n%s", cuts, cmp.Diff(want, last))
				}
			}
			found, err := typed.FirstJSON(text, schemaOf(reflect.TypeFor[propValue]()).schema)
			if err != nil {
				t.Fatal(err)
			}
			var final propValue
			if err := json.Unmarshal(found, &final); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, final); diff != "" {
				t.Fatalf("final value (-want +got):\n%s", diff)
			}
		}
	}
}

// TestPartialObjectKeysMetAgain writes random values as objects whose keys are met more than once,
// each time with another random value of the field, in a random order, and cuts the text at every
// byte and at random sizes: once a key's last value has begun, no partial shows in that field what
// the final value (encoding/json's, which merges objects and elements into the earlier values)
// contradicts, and the last partial is the final value.
func TestPartialObjectKeysMetAgain(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*objectSeed, 5))
	typ := reflect.TypeFor[propValue]()
	for range 2 * *objectCases {
		values := []propValue{genValue(rng), genValue(rng), genValue(rng)}
		var fields []int // one entry per occurrence of a key, in the order of the text
		for i := range typ.NumField() {
			for range 1 + rng.IntN(3) {
				fields = append(fields, i)
			}
		}
		rng.Shuffle(len(fields), func(a, b int) { fields[a], fields[b] = fields[b], fields[a] })
		var text strings.Builder
		starts := make([]int, typ.NumField()) // where each key's last value begins
		text.WriteString("{")
		for n, i := range fields {
			if n > 0 {
				text.WriteString(",")
			}
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			raw, err := json.Marshal(reflect.ValueOf(values[rng.IntN(len(values))]).Field(i).Interface())
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&text, "%q:", name)
			starts[i] = text.Len()
			text.Write(raw)
		}
		text.WriteString("}")
		var final propValue
		if err := json.Unmarshal([]byte(text.String()), &final); err != nil {
			t.Fatal(err)
		}
		check := func(end int, partial propValue) error {
			for i := range typ.NumField() {
				if starts[i] >= end {
					continue
				}
				path := "value." + typ.Field(i).Name
				if err := consistent(reflect.ValueOf(partial).Field(i), reflect.ValueOf(final).Field(i), path); err != nil {
					return err
				}
			}
			return nil
		}
		src := text.String()
		cutSets := [][]int{nil}
		for i := 1; i < len(src); i++ {
			cutSets = append(cutSets, []int{i})
		}
		for range 20 {
			var cuts []int
			for i := rng.IntN(9); i < len(src); i += 1 + rng.IntN(17) {
				cuts = append(cuts, i)
			}
			cutSets = append(cutSets, cuts)
		}
		for _, cuts := range cutSets {
			last := feedObjectChecked(t, src, cuts, true, check)
			if !equalValues(final, last) {
				t.Fatalf("%s\nlast partial, cut at %v (-final +partial):\n%s", src, cuts, cmp.Diff(final, last))
			}
		}
	}
}
