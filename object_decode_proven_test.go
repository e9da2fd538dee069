package infergate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	schemacheck "github.com/infergate/infergate-go/internal/schema"
	"github.com/infergate/infergate-go/internal/typed"
)

// sameAsSeparately checks typed.DecodeProven on text against what GenerateObject did without it: it
// proves text valid only when the quick proof does (so the validator accepts it too) and the
// one-pass decode takes it, and then leaves the value json.Unmarshal leaves; and it proves every
// text those two take. It reports whether it proved text valid.
func sameAsSeparately[T any](t *testing.T, text []byte, schema *schemacheck.Checked) bool {
	t.Helper()
	var got, plain T
	proven := typed.DecodeProven(string(text), &got, schema)
	separately := schema.ProvenValid(context.Background(), text) && typed.DecodePlain(string(text), &plain, nil)
	if proven != separately {
		t.Fatalf("%s: typed.DecodeProven says %v, the quick proof and the one-pass decode %v", text, proven, separately)
	}
	if !proven {
		if !reflect.ValueOf(&got).Elem().IsZero() {
			t.Fatalf("%s: not proven, but the value is not left zero: %+v", text, got)
		}
		return false
	}
	var want T
	if err := json.Unmarshal(text, &want); err != nil {
		t.Fatalf("%s: proven, but json.Unmarshal says %v", text, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\n(-json.Unmarshal +typed.DecodeProven):\n%s", text, cmp.Diff(want, got))
	}
	if err := validateSlowly(context.Background(), text, schema, "the value"); err != nil {
		t.Fatalf("%s: proven, but the validator says %v", text, err)
	}
	return true
}

// TestDecodeProvenAgreesWithTheSeparatePasses checks typed.DecodeProven on random values of the types
// whose schemas QuickSchema checks, and their texts changed in ways that break the schema, the
// syntax or the decoding.
func TestDecodeProvenAgreesWithTheSeparatePasses(t *testing.T) {
	t.Parallel()
	schemas := quickSchemas(t)
	r := rand.New(rand.NewPCG(*objectSeed, 12))
	proven, total := 0, 0
	for range 1500 {
		var value any
		var check func([]byte) bool
		switch r.IntN(4) {
		case 0:
			value = genValue(r)
			check = func(text []byte) bool { return sameAsSeparately[propValue](t, text, schemas["infergate.propValue"]) }
		case 1:
			value = []propItem{genItem(r), genItem(r)}
			check = func(text []byte) bool { return sameAsSeparately[[]propItem](t, text, schemas["[]infergate.propItem"]) }
		case 2:
			value = quickScalar(r.IntN(256) - 128)
			check = func(text []byte) bool {
				return sameAsSeparately[quickScalar](t, text, schemas["infergate.quickScalar"])
			}
		default:
			value = quickShapes{Maps: map[string][]float64{genString(r, 4): {1.5, 2}}, Small: uint8(r.IntN(256)),
				Any: []any{nil, "x", map[string]any{"k": []any{1.5}}}[r.IntN(3)], Enum: []string{"", "a", `"c"`}[r.IntN(3)]}
			check = func(text []byte) bool {
				return sameAsSeparately[quickShapes](t, text, schemas["infergate.quickShapes"])
			}
		}
		text := mustJSON(t, value)
		if !check(text) {
			t.Fatalf("%s: encoding/json's own text of a valid value not proven", text)
		}
		for range 1 + r.IntN(3) {
			if r.IntN(2) == 0 {
				var generic any
				if json.Unmarshal(text, &generic) == nil {
					text = mustJSON(t, mutate(r, generic))
				}
			} else {
				text = textMutations[r.IntN(len(textMutations))](r, text)
			}
		}
		total++
		if check(text) {
			proven++
		}
	}
	if proven == 0 || proven == total {
		t.Fatalf("%d of %d changed texts proven: the changes do not reach both sides", proven, total)
	}
}

// FuzzDecodeProven: on any bytes, typed.DecodeProven proves what the separate passes prove, and leaves
// json.Unmarshal's value.
func FuzzDecodeProven(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		f.Add(mustJSON(f, genValue(r)))
	}
	f.Add([]byte(`{"maps":{"a":[1.5,2]},"small":255,"enum":"\"c\"","any":[{"k":null}]}`))
	f.Add([]byte(`[{"label":"x","score":1e-3,"tags":["a"],"note":null}]`))
	f.Fuzz(func(t *testing.T, text []byte) {
		schemas := quickSchemas(t)
		sameAsSeparately[propValue](t, text, schemas["infergate.propValue"])
		sameAsSeparately[quickShapes](t, text, schemas["infergate.quickShapes"])
		sameAsSeparately[[]propItem](t, text, schemas["[]infergate.propItem"])
		sameAsSeparately[quickScalar](t, text, schemas["infergate.quickScalar"])
	})
}

// decodeLimits has numbers of every size, and nests pointers, maps and arrays of them.
type decodeLimits struct {
	I8   int8                `json:"i8"`
	I16  int16               `json:"i16"`
	I32  int32               `json:"i32"`
	I64  int64               `json:"i64"`
	Int  int                 `json:"int"`
	U8   uint8               `json:"u8"`
	U16  uint16              `json:"u16"`
	U32  uint32              `json:"u32"`
	U64  uint64              `json:"u64"`
	F32  float32             `json:"f32"`
	F64  float64             `json:"f64"`
	PF   *float64            `json:"pf"`
	PPI  **int64             `json:"ppi"`
	Fs   []float64           `json:"fs"`
	Arr  [3]uint16           `json:"arr"`
	ByK  map[string]*float32 `json:"by_k"`
	Next *decodeLimits       `json:"next"`
	Text string              `json:"text"`
}

// limitInt is an integer at or next to a limit of a Go integer type of so many bits, mostly
// within it, or a few digits.
func limitInt(r *rand.Rand, bits int, signed bool) string {
	edge := r.IntN(3) - 1 // past the limit when 1
	if r.IntN(3) > 0 {
		edge = -r.IntN(2)
	}
	switch {
	case r.IntN(3) == 0:
		return strconv.Itoa(r.IntN(1000))
	case !signed && r.IntN(6) == 0:
		return "-" + strconv.Itoa(r.IntN(2))
	case !signed:
		return strconv.FormatUint(math.MaxUint64>>(64-bits)+uint64(edge), 10)
	case r.IntN(2) == 0:
		return strconv.FormatInt(math.MinInt64>>(64-bits)-int64(edge), 10)
	}
	return strconv.FormatInt(math.MaxInt64>>(64-bits)+int64(edge), 10)
}

// limitFloat is a number at or next to a limit of float64's or float32's range or exactness.
func limitFloat(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0: // around 2^53, where integers stop being exact in a float64
		return strconv.FormatUint(1<<53+uint64(r.IntN(5))-2, 10) + []string{"", ".0", "e0", "e-1", "e22", "e-22", "e23"}[r.IntN(7)]
	case 1:
		f := []float64{math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32, math.SmallestNonzeroFloat32, 2.2250738585072014e-308,
			1e22, 1e23, 9007199254740993, 0.1, 1.0 / 3}[r.IntN(10)]
		return strconv.FormatFloat(f*float64(1-2*r.IntN(2)), []byte("geE")[r.IntN(3)], -1, 64)
	case 2: // many digits, and powers of ten past the table
		digits := strings.Repeat(strconv.Itoa(1+r.IntN(9)), 1+r.IntN(25))
		return digits + "." + digits + "e" + strconv.Itoa(r.IntN(160)-80)
	}
	return strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), 'g', -1, 64)
}

// genLimitsText writes a decodeLimits as a model might, with numbers at their limits, nulls and
// nesting anywhere.
func genLimitsText(r *rand.Rand, depth int) string {
	or := func(num string) string {
		if r.IntN(10) == 0 {
			return "null"
		}
		return num
	}
	var fields []string
	for _, f := range []struct {
		name   string
		bits   int
		signed bool
	}{{"i8", 8, true}, {"i16", 16, true}, {"i32", 32, true}, {"i64", 64, true}, {"int", 64, true}, {"ppi", 64, true},
		{"u8", 8, false}, {"u16", 16, false}, {"u32", 32, false}, {"u64", 64, false}} {
		if r.IntN(4) > 0 {
			fields = append(fields, fmt.Sprintf("%q:%s", f.name, or(limitInt(r, f.bits, f.signed))))
		}
	}
	for _, name := range []string{"f32", "f64", "pf"} {
		if r.IntN(4) > 0 {
			fields = append(fields, fmt.Sprintf("%q:%s", name, or(limitFloat(r))))
		}
	}
	fs := make([]string, r.IntN(4))
	for i := range fs {
		fs[i] = or(limitFloat(r))
	}
	fields = append(fields, `"fs":[`+strings.Join(fs, ",")+`]`, fmt.Sprintf(`"arr":[%s,%s]`, limitInt(r, 16, false), or(limitInt(r, 16, false))),
		fmt.Sprintf(`"by_k":{"a":%s,"b":%s}`, limitFloat(r), or(limitFloat(r))), fmt.Sprintf(`"text":%q`, genString(r, 6)))
	if depth < 3 && r.IntN(2) == 0 {
		fields = append(fields, `"next":`+or(genLimitsText(r, depth+1)))
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
}

// TestDecodeValueAtTheLimits decodes numbers at and next to the limits of every Go number type,
// and of a float64's exactness, as json.Unmarshal does on this toolchain.
func TestDecodeValueAtTheLimits(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(*objectSeed, 13))
	plain := 0
	n := Scaled(3000) // a tenth under the race detector: one goroutine's parsing
	for range n {
		text := []byte(genLimitsText(r, 0))
		sameAsUnmarshal[decodeLimits](t, text)
		if typed.DecodePlain(string(text), new(decodeLimits), nil) {
			plain++
		}
		sameAsUnmarshal[decodeLimits](t, mutateText(r, text))
		sameAsUnmarshal[[]float64](t, []byte("["+limitFloat(r)+","+limitFloat(r)+"]"))
	}
	// Most numbers are within their type's limits, a few past them: the one pass decodes many
	// texts, and leaves the others to json.Unmarshal.
	if plain < n/20 || plain > n*19/20 {
		t.Fatalf("the one pass decoded %d texts of %d", plain, n)
	}
}
