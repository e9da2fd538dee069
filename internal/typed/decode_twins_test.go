//go:build !purego

package typed

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go/internal/schema"
)

// twinRecord has a part of every kind the decoder plans, and parts it hands to encoding/json.
type twinRecord struct {
	Name     string            `json:"name"`
	Count    int8              `json:"count,omitempty"`
	Wide     uint32            `json:"wide"`
	Ratio    float32           `json:"ratio"`
	Score    float64           `json:"score"`
	OK       bool              `json:"ok"`
	Tags     []string          `json:"tags"`
	Grid     [2][]int16        `json:"grid"`
	Next     *twinRecord       `json:"next,omitempty"`
	Kids     []twinRecord      `json:"kids,omitempty"`
	Labels   map[string]*int64 `json:"labels"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	When     time.Time         `json:"when,omitzero"`
	Anything any               `json:"anything"`
}

// decodeBoth decodes text with both twins into fresh values of t; with q, they also prove it.
func decodeBoth(t reflect.Type, text string, q *schema.QuickSchema) (viaUnsafe, viaSafe reflect.Value, okUnsafe, okSafe bool) {
	viaUnsafe, viaSafe = reflect.New(t), reflect.New(t)
	okUnsafe = decodeUnsafe(text, t, viaUnsafe.UnsafePointer(), q)
	okSafe = decodeSafe(text, viaSafe.Elem(), q)
	return viaUnsafe, viaSafe, okUnsafe, okSafe
}

// twinSchema is the checking form of t's schema, as jsonschema-go derives it.
func twinSchema(tb testing.TB, t reflect.Type) *schema.QuickSchema {
	checked, err := schema.Check(schemaOfType(t))
	if err != nil {
		tb.Fatal(err)
	}
	return checked.Quick
}

// FuzzTypedDecodeTwins feeds the unsafe twin and the safe twin the same text, for a few types,
// with and without a schema to prove: they decide the same, build the same value, and when they
// decode it, it is json.Unmarshal's.
func FuzzTypedDecodeTwins(f *testing.F) {
	seeds := []string{
		`{"name":"a","count":3,"wide":7,"ratio":1.5,"score":-2e3,"ok":true,"tags":["x","y\u00e9"],"grid":[[1,2],[]],` +
			`"next":{"name":"b","kids":[{"name":"c"}]},"labels":{"k":5,"n":null},"raw":[1,{}],"anything":{"a":[true]}}`,
		`[1,2,3]`, `{"name":"\ud83d\ude00\n","tags":[]}`, `{"count":300}`, `null`, `{"name":"a","name":"b"}`,
		`{"wide":-1}`, `{"grid":[[1],[2],[3]]}`, `{"kids":[{"kids":[{"kids":[]}]}]}`, `{"ratio":1e40}`,
		`{"score":124.66666666666667}`, `[0.1234567890123456789,9007199254740993.0,-1844674407370955161.5]`,
	}
	// Slices longer than their blocks, nested in slices of their own plan: read in scratch memory.
	long := make([]string, 40)
	for i := range long {
		long[i] = strconv.Itoa(i)
	}
	ints := "[" + strings.Join(long, ",") + "]"
	kid := `{"name":"k","tags":["` + strings.Join(long, `","`) + `"],"grid":[` + ints + `,[]]}`
	kids := "[" + strings.Repeat(kid+",", 20) + kid + "]"
	seeds = append(seeds, ints, `{"kids":`+kids+`,"next":{"kids":[{"kids":`+kids+`}]}}`, `[{"kids":`+kids+`}]`)
	for _, s := range seeds {
		f.Add(s)
	}
	types := []reflect.Type{reflect.TypeFor[twinRecord](), reflect.TypeFor[[]int](), reflect.TypeFor[map[string][]string](),
		reflect.TypeFor[*[3]float64](), reflect.TypeFor[[]*twinRecord]()}
	schemas := map[reflect.Type]*schema.QuickSchema{}
	for _, t := range []reflect.Type{reflect.TypeFor[[]int](), reflect.TypeFor[map[string][]string]()} {
		schemas[t] = twinSchema(f, t)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, typ := range types {
			qs := []*schema.QuickSchema{nil}
			if q := schemas[typ]; q != nil {
				qs = append(qs, q)
			}
			for _, q := range qs {
				viaUnsafe, viaSafe, okUnsafe, okSafe := decodeBoth(typ, text, q)
				if okUnsafe != okSafe {
					t.Fatalf("%s into %v (proving: %v): the unsafe twin says %v, the safe one %v", text, typ, q != nil, okUnsafe, okSafe)
				}
				if diff := cmp.Diff(viaUnsafe.Interface(), viaSafe.Interface()); diff != "" {
					t.Fatalf("%s into %v (proving: %v): (-unsafe +safe):\n%s", text, typ, q != nil, diff)
				}
				if !okUnsafe {
					continue
				}
				want := reflect.New(typ)
				if err := json.Unmarshal([]byte(text), want.Interface()); err != nil {
					t.Fatalf("%s into %v: the twins decoded what json.Unmarshal refuses: %v", text, typ, err)
				}
				if diff := cmp.Diff(want.Interface(), viaSafe.Interface()); diff != "" {
					t.Fatalf("%s into %v: (-json.Unmarshal +twins):\n%s", text, typ, diff)
				}
			}
		}
	})
}
