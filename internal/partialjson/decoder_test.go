package partialjson

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type inner struct {
	S  string            `json:"s"`
	N  *int              `json:"n,omitempty"`
	Xs []float64         `json:"xs"`
	M  map[string]*inner `json:"m,omitempty"`
}

type Embedded struct {
	Promoted string `json:"promoted"`
	Shadowed int
}

type outer struct {
	Embedded
	Shadowed int                `json:"Shadowed"`
	Name     string             `json:"name"`
	Kind     string             `json:"kind" enum:"a,b"`
	Quoted   int                `json:"quoted,string"`
	When     time.Time          `json:"when"`
	Any      any                `json:"any"`
	Raw      json.RawMessage    `json:"raw"`
	Bytes    []byte             `json:"bytes"`
	IntKeys  map[int]string     `json:"int_keys"`
	Inner    inner              `json:"inner"`
	List     []inner            `json:"list"`
	Ptrs     []*inner           `json:"ptrs"`
	Fixed    [2]bool            `json:"fixed"`
	Num      json.Number        `json:"num"`
	Deep     [][]map[string]int `json:"deep"`
	Skip     string             `json:"-"`
	Unsigned uint16             `json:"u"`
}

var decoderCases = []string{
	`{"promoted":"p","Shadowed":3,"name":"n\u00e9","kind":"b","quoted":"42","when":"2025-01-02T03:04:05Z",
	  "any":{"x":[1,"y",null]},"raw":[1, 2],"bytes":"aGk=","int_keys":{"1":"one"},
	  "inner":{"s":"in","n":5,"xs":[1.5,-2],"m":{"k":{"s":"deep"}}},"list":[{"s":"a"},{"s":"b","xs":[]}],
	  "ptrs":[null,{"s":"p"}],"fixed":[true,false,true],"num":1e3,"deep":[[{"a":1}],[]],"-":"x","u":65535,
	  "NAME":"case","unknown":{"a":[1,2,{"b":null}]}}`,
	`{"name":5,"inner":"wrong","list":{"s":1},"u":-1,"quoted":"x","fixed":[1],"when":12}`,
	`{"list":null,"inner":null,"ptrs":[],"any":null}`,
	`{}`, `[]`, `"str"`, `12`, `null`,
	// Keys met again, of every kind: the last wins, merging as encoding/json merges.
	`{"list":[{"s":"a","xs":[1,2]},{"s":"b"}],"list":[{"n":3,"xs":[9]}],"list":[{},{}],"name":"x","name":"",
	  "inner":{"s":"a","m":{"k":{"s":"x"}}},"inner":{"n":1,"m":{"j":{}}},"fixed":[true,true,true],"fixed":[false],
	  "deep":[[{"a":1}],[{"b":1}]],"deep":[[{"b":2}]],"u":1,"u":2,"Shadowed":4,"Shadowed":null,"ptrs":[{"s":"p"}],"ptrs":[null],
	  "int_keys":{"1":"a"},"int_keys":{"2":"b"},"any":{"a":1},"any":[1],"num":1,"num":2,"when":"2025-01-02T03:04:05Z",
	  "when":"2026-01-02T03:04:05Z","raw":[1,2,3],"raw":{}}`,
	`{"list":[{"s":"a"}],"list":[],"list":[{"n":1}],"inner":{"xs":[1]},"inner":null,"ptrs":[{"s":"a"}],"ptrs":[{"n":2}],
	  "inner":{"m":{"a":{"s":"x","xs":[1,2]}}},"inner":{"m":{"a":{"n":1}}},"fixed":[true],"fixed":[]}`,
}

// decodeInPieces feeds text to a Decoder cut at random places, each piece as a []byte or a string
// at random, and returns the value it built.
func decodeInPieces(t *testing.T, text []byte, rng *rand.Rand) (outer, error) {
	t.Helper()
	var v outer
	d := NewDecoder(reflect.ValueOf(&v).Elem())
	for i := 0; i < len(text); {
		n := 1 + rng.IntN(9)
		end := min(len(text), i+n)
		write := d.Write
		if rng.IntN(2) == 0 {
			write = func(piece []byte) (bool, error) { return d.WriteString(string(piece)) }
		}
		if _, err := write(text[i:end]); err != nil {
			return v, err
		}
		i = end
	}
	_, err := d.Close()
	return v, err
}

// The decoder's value, once the text is complete, is encoding/json's for every text encoding/json
// decodes without error.
func checkDecoder(t *testing.T, text []byte, seed uint64) {
	t.Helper()
	got, err := decodeInPieces(t, text, rand.New(rand.NewPCG(seed, 1)))
	var want outer
	if json.Unmarshal(text, &want) != nil {
		return
	}
	if err != nil {
		t.Fatalf("%s: encoding/json decodes it, the decoder fails: %v", text, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s (-encoding/json +decoder):\n%s", text, diff)
	}
}

func TestDecoderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, c := range decoderCases {
		for seed := range uint64(20) {
			checkDecoder(t, []byte(c), seed)
		}
	}
}

func TestDecoderReportsChanges(t *testing.T) {
	t.Parallel()
	var v outer
	d := NewDecoder(reflect.ValueOf(&v).Elem())
	steps := []struct {
		piece   string
		changed bool
	}{
		{`{"name":"ab`, true}, {`c","kind":"a`, true}, {`","u":1`, true}, // the enum and the number wait
		{`2,`, true}, {`"list":[{"s":"x"`, true}, {`}`, true}, {`]`, true}, {` `, false},
		{`, "when":"2025-01-02T03:04:05Z"`, true}, {`}`, true},
	}
	for _, s := range steps {
		changed, err := d.Write([]byte(s.piece))
		if err != nil {
			t.Fatal(err)
		}
		if changed != s.changed {
			t.Fatalf("after %q: changed %v, value %+v", s.piece, changed, v)
		}
	}
	if !d.Done() || v.Name != "abc" || v.Kind != "a" || v.Unsigned != 12 || len(v.List) != 1 || v.When.Year() != 2025 {
		t.Fatalf("value %+v", v)
	}
}

// FuzzDecoder: no text, cut anywhere, makes the decoder panic, and a text encoding/json decodes
// gives encoding/json's value.
func FuzzDecoder(f *testing.F) {
	for _, c := range decoderCases {
		f.Add([]byte(c), uint64(1))
	}
	f.Fuzz(func(t *testing.T, text []byte, seed uint64) {
		checkDecoder(t, text, seed)
	})
}

type panicky struct{}

func (*panicky) UnmarshalJSON([]byte) error { panic("boom") }

// A value's own method that panics fails the decoder, for this fragment and every later one,
// rather than the caller.
func TestDecoderSurvivesPanickingMethods(t *testing.T) {
	t.Parallel()
	var v struct {
		Before string  `json:"before"`
		P      panicky `json:"p"`
	}
	d := NewDecoder(reflect.ValueOf(&v).Elem())
	if _, err := d.Write([]byte(`{"before":"x","p":{"a"`)); err != nil {
		t.Fatal(err)
	}
	changed, err := d.Write([]byte(`:1},"after":2`))
	if err == nil || changed || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("changed %v, error %v; want the panic as an error", changed, err)
	}
	if _, again := d.Write([]byte(`}`)); again != err {
		t.Fatalf("after the failure: %v, want %v", again, err)
	}
	if v.Before != "x" {
		t.Fatalf("value %+v", v)
	}
}

// A caller may append to a slice the value shows (to show a row for the element in progress, say):
// that writes into the slice's spare capacity, which must not be where the next element is built.
func TestDecoderElementsSurviveAppendsToTheValue(t *testing.T) {
	t.Parallel()
	var v outer
	d := NewDecoder(reflect.ValueOf(&v).Elem())
	for _, piece := range []string{`{"list":[{"s":"a"},{"s":"b"`, `,"xs":[1]},{"s":"c"`} {
		if _, err := d.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
		n := 7
		_ = append(v.List, inner{S: "the caller's", N: &n, Xs: []float64{9}})
	}
	if _, err := d.Write([]byte(`}]}`)); err != nil {
		t.Fatal(err)
	}
	want := []inner{{S: "a"}, {S: "b", Xs: []float64{1}}, {S: "c"}}
	if diff := cmp.Diff(want, v.List); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// A caller who shares a pointer with the value may assign to a slice behind it while its array is
// still arriving: the builder keeps its own view of the slice, so the assignment is lost at the
// next element, the builder never writes past its array, and the value ends as encoding/json
// decodes the text.
func TestDecoderSurvivesAssignmentsToASliceInProgress(t *testing.T) {
	t.Parallel()
	type shared struct {
		Items []int `json:"items"`
	}
	type root struct {
		In *shared `json:"in"`
	}
	var b strings.Builder
	b.WriteString(`{"in":{"items":[`)
	for i := range 300 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i * 7))
	}
	b.WriteString(`]}}`)
	text := b.String()
	var want root
	if err := json.Unmarshal([]byte(text), &want); err != nil {
		t.Fatal(err)
	}
	for step, assign := range []func(*shared){
		func(s *shared) { s.Items = append(s.Items, -1, -2, -3) },
		func(s *shared) { s.Items = s.Items[:0] },
		func(s *shared) { s.Items = nil },
		func(s *shared) { s.Items = make([]int, 1, 1000) },
		func(s *shared) { s.Items = s.Items[:len(s.Items):len(s.Items)] },
	} {
		var v root
		d := NewDecoder(reflect.ValueOf(&v).Elem())
		for i := 0; i < len(text); i += 5 {
			if _, err := d.Write([]byte(text[i:min(i+5, len(text))])); err != nil {
				t.Fatal(err)
			}
			if v.In != nil && len(v.In.Items) > 0 && i < len(text)/2 { // the array has begun
				assign(v.In)
			}
		}
		if diff := cmp.Diff(want, v); diff != "" {
			t.Fatalf("assignment %d: (-want +got):\n%s", step, diff)
		}
	}
}
