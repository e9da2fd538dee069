package infergate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go/internal/typed"
)

// decodeMix has a part of every kind typed.Decode plans, and parts it hands to encoding/json.
type decodeMix struct {
	U16     uint16                 `json:"u16"`
	F32     float32                `json:"f32"`
	Int     *int                   `json:"int,omitempty"`
	Deep    **string               `json:"deep"`
	ByLevel map[propLevel]int      `json:"by_level"`
	Lists   map[string][]*propItem `json:"lists"`
	Any     any                    `json:"any"`
	Bytes   []byte                 `json:"bytes"`
	Raw     json.RawMessage        `json:"raw"`
	Num     json.Number            `json:"num"`
	Wait    time.Duration          `json:"wait"`
	Grid    [2][3]int8             `json:"grid"`
	Tree    *decodeTree            `json:"tree"`
	Go      string                 // named by its Go name
	skipped int
	Ignored string `json:"-"`
}

type decodeTree struct {
	Name string       `json:"name"`
	Kids []decodeTree `json:"kids"`
}

func genMix(r *rand.Rand) decodeMix {
	m := decodeMix{U16: uint16(r.IntN(1 << 16)), F32: float32(r.NormFloat64() * 100), Go: genString(r, 8),
		Num: json.Number(fmt.Sprint(r.IntN(1000))), Wait: time.Duration(r.Int64N(1e12))}
	if r.IntN(2) == 0 {
		n := r.IntN(1<<20) - 1<<19
		m.Int = &n
	}
	if r.IntN(2) == 0 {
		s := genString(r, 10)
		p := &s
		m.Deep = &p
	}
	if r.IntN(2) == 0 {
		m.ByLevel = map[propLevel]int{}
		for range r.IntN(3) {
			m.ByLevel[propLevel(genString(r, 4))] = r.IntN(100)
		}
	}
	if r.IntN(2) == 0 {
		m.Lists = map[string][]*propItem{}
		for range r.IntN(3) {
			var list []*propItem
			for range r.IntN(3) {
				it := genItem(r)
				list = append(list, &it)
			}
			m.Lists[genString(r, 4)] = list
		}
	}
	switch r.IntN(3) {
	case 0:
		m.Any = map[string]any{"a": []any{1.5, "x", nil, true}}
	case 1:
		m.Any = genString(r, 6)
	}
	if r.IntN(2) == 0 {
		m.Bytes = []byte(genString(r, 6))
	}
	if r.IntN(2) == 0 {
		m.Raw = json.RawMessage(`{"k":[1,2]}`)
	}
	for i := range m.Grid {
		for j := range m.Grid[i] {
			m.Grid[i][j] = int8(r.IntN(256) - 128)
		}
	}
	if r.IntN(2) == 0 {
		m.Tree = &decodeTree{Name: genString(r, 5), Kids: []decodeTree{{Name: "leaf"}, {Kids: []decodeTree{}}}}
	}
	return m
}

// mutateText changes JSON text the way a model or a fuzzer might: keys in another case or met twice,
// escapes, spaces, numbers in other spellings or out of range, values of another kind, cuts.
func mutateText(r *rand.Rand, text []byte) []byte {
	s := string(text)
	for range r.IntN(3) {
		switch r.IntN(10) {
		case 0:
			s = strings.Replace(s, `"title"`, `"Title"`, 1)
		case 1:
			if i := strings.Index(s, `"count":`); i >= 0 {
				s = s[:i] + `"count":7,` + s[i:]
			}
		case 2:
			s = strings.ReplaceAll(s, "a", `\u0061`)
		case 3:
			s = strings.ReplaceAll(s, ",", " ,\n\t")
		case 4:
			s = strings.Replace(s, "1", "1e2", 1)
		case 5:
			s = strings.Replace(s, `"u16":`, `"u16":-`, 1)
		case 6:
			s = strings.Replace(s, "true", `"true"`, 1)
		case 7:
			s = s[:r.IntN(len(s)+1)]
		case 8:
			s = strings.Replace(s, `é`, "\xff", 1)
		case 9:
			s = strings.Replace(s, `"text"`, `"text":1,"unknown"`, 1)
		}
	}
	return []byte(s)
}

// sameAsUnmarshal checks that typed.Decode leaves what json.Unmarshal leaves, and says the same.
func sameAsUnmarshal[T any](t *testing.T, text []byte) {
	t.Helper()
	var got, want T
	errGot, errWant := typed.Decode(text, &got), json.Unmarshal(text, &want)
	if fmt.Sprint(errGot) != fmt.Sprint(errWant) {
		t.Fatalf("%s\ndecodeValue: %v\njson.Unmarshal: %v", text, errGot, errWant)
	}
	if !reflect.DeepEqual(got, want) { // linear on deep values, where cmp.Diff is not
		t.Fatalf("%s\n(-json.Unmarshal +typed.Decode):\n%s", text, cmp.Diff(want, got, cmp.AllowUnexported(decodeMix{})))
	}
}

// TestDecodeValueProperty decodes random values, and their text changed in many ways, as
// json.Unmarshal does on this toolchain.
func TestDecodeValueProperty(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(*objectSeed, 7))
	for range 400 {
		v := genValue(r)
		text := mustJSON(t, v)
		sameAsUnmarshal[propValue](t, text)
		if !typed.DecodePlain(string(text), new(propValue), nil) {
			t.Fatalf("the one pass left encoding/json's own output to json.Unmarshal: %s", text)
		}
		sameAsUnmarshal[propValue](t, mutateText(r, text))
		m := genMix(r)
		text = mustJSON(t, m)
		sameAsUnmarshal[decodeMix](t, text)
		if !typed.DecodePlain(string(text), new(decodeMix), nil) {
			t.Fatalf("the one pass left encoding/json's own output to json.Unmarshal: %s", text)
		}
		sameAsUnmarshal[decodeMix](t, mutateText(r, text))
	}
}

// TestDecodeValueEdges covers what the random values rarely reach.
func TestDecodeValueEdges(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`{"title":"\ud83d\ude00 \ud83d \ude00 \u00e9\/\b\f\n\r\t"}`, `{"title":"\ud83dx"}`, `{"title":"\u12"}`,
		`{"small":127}`, `{"small":128}`, `{"small":-129}`, `{"count":1.0}`, `{"count":-0}`, `{"count":01}`,
		`{"ratio":1e400}`, `{"ratio":-}`, `{"ratio":1.}`, `{"ratio":1e}`, `{"ratio":.5}`, `{"ratio":2.5E-3}`,
		`{"pair":["a","b","c"]}`, `{"pair":["a"]}`, `{"pair":null}`, `{"items":null}`, `{"items":[]}`,
		`{"attrs":{}}`, `{"attrs":{"a":"1","a":"2"}}`, `{"ptr":null}`, `{"ptr":{}}`, `{"ok":tru}`,
		`{"when":"2026-11-24T08:00:00Z"}`, `{"when":null}`, `{"when":"yesterday"}`, `{"nested":{"deep":{"text":"x"}}}`,
		` {"title":"x"} `, `{"title":"x"} {}`, `{"title":"x",}`, `{,}`, `[]`, `null`, ``, `{"title":"a` + "\x01" + `"}`,
		`{"matrix":[[1,2],[3]],"matrix":[[4]]}`, `{"TITLE":"x"}`, `{"items":[{"label":"a","label":"b"}]}`,
		`{"level":"other"}`, `{"title":"` + strings.Repeat("[", 20) + `"}`,
	} {
		sameAsUnmarshal[propValue](t, []byte(text))
	}
	for _, text := range []string{
		`{"num":"12"}`, `{"num":"abc"}`, `{"num":12}`, `{"wait":5}`, `{"any":{"x":[1,{"y":null}]}}`, `{"bytes":"aGk="}`,
		`{"raw":[1, 2 ]}`, `{"by_level":{"low":1}}`, `{"grid":[[1,2,3,4]]}`, `{"u16":65536}`, `{"u16":-0}`,
		`{"f32":3.4e39}`, `{"deep":null}`, `{"deep":"x"}`, `{"skipped":1}`, `{"Ignored":"x"}`, `{"go":"x"}`, `{"Go":"x"}`,
		`{"tree":{"kids":[{"kids":[{"name":"x"}]}]}}`, `{"any":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`,
	} {
		sameAsUnmarshal[decodeMix](t, []byte(text))
	}
	deep := strings.Repeat(`{"kids":[`, 1500) + strings.Repeat(`]}`, 1500)
	sameAsUnmarshal[decodeTree](t, []byte(deep))
	sameAsUnmarshal[[]float64](t, []byte(`[1, -2.5e3, 1e-400]`))
	sameAsUnmarshal[map[string]*int](t, []byte(`{"a":1,"b":null}`))
	sameAsUnmarshal[string](t, []byte(`"`+strings.Repeat("ü\\n", 100)+`"`))
	sameAsUnmarshal[float64](t, []byte(fmt.Sprint(math.MaxFloat64)))
}

// FuzzDecodeValue: on any bytes, typed.Decode leaves and says what json.Unmarshal does.
func FuzzDecodeValue(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		f.Add(mustJSON(f, genValue(r)))
		f.Add(mustJSON(f, genMix(r)))
	}
	f.Add([]byte(`{"title":"\ud83d\ude00","pair":["a","b","c"],"attrs":{"a":"1","a":"2"}}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		sameAsUnmarshal[propValue](t, text)
		sameAsUnmarshal[decodeMix](t, text)
		sameAsUnmarshal[decodeTree](t, bytes.TrimSpace(text))
	})
}

// BenchmarkDecodeValue decodes the 50 KB benchObject with typed.Decode, with typed.DecodeProven (which
// also proves it valid against its schema, as GenerateObject does) and with json.Unmarshal.
func BenchmarkDecodeValue(b *testing.B) {
	_, raw := benchObject(b)
	ts := schemaOf(reflect.TypeFor[propValue]())
	if err := ts.forObjects(); err != nil {
		b.Fatal(err)
	}
	text, schema := string(raw), ts.call.resolved
	for _, d := range []struct {
		name   string
		decode func([]byte, *propValue) error
	}{
		{"Decode", typed.Decode[propValue]},
		{"DecodeProven", func(_ []byte, v *propValue) error {
			if !typed.DecodeProven(text, v, schema) {
				return errors.New("not proven")
			}
			return nil
		}},
		{"json.Unmarshal", func(raw []byte, v *propValue) error { return json.Unmarshal(raw, v) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			defer reportCPU(b, cpuTime(b))
			for b.Loop() {
				var v propValue
				if err := d.decode(raw, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
