package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	schemacheck "github.com/infergate/infergate-go/internal/schema"
)

// validateSlowly is what objectRun.validate did before QuickSchema: the generic decode, the
// bound and jsonschema-go, on every value.
func validateSlowly(ctx context.Context, raw []byte, schema *schemacheck.Checked, whole string) error {
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	err := schema.Validate(ctx, instance)
	if err == nil || errors.Is(err, ErrSchemaTooCostly) || ctx.Err() != nil && err == context.Cause(ctx) {
		return err
	}
	return &schemaMismatch{why: schemacheck.Explain(schema.Schema(), instance, whole, err), err: err}
}

type quickScalar int8

type quickShapes struct {
	Maps  map[string][]float64 `json:"maps"`
	Any   any                  `json:"any,omitempty"`
	Small uint8                `json:"small"`
	Enum  string               `json:"enum,omitempty" enum:"a,b,\"c\""`
}

// quickSchemas are the checking forms of the schemas SchemaFor derives for a few types, as
// objects check them: the value's own, and the call's (an envelope for a value not an object).
func quickSchemas(t *testing.T) map[string]*schemacheck.Checked {
	out := map[string]*schemacheck.Checked{}
	for _, typ := range []reflect.Type{reflect.TypeFor[propValue](), reflect.TypeFor[[]propItem](),
		reflect.TypeFor[quickScalar](), reflect.TypeFor[quickShapes](), reflect.TypeFor[map[string]*propItem]()} {
		ts := schemaOf(typ)
		if err := ts.forObjects(); err != nil {
			t.Fatal(typ, err)
		}
		out[typ.String()] = ts.resolved
		out[typ.String()+" call"] = ts.call.resolved
		if ts.resolved.Quick == nil || ts.call.resolved.Quick == nil {
			t.Fatalf("%v: its schema is not checked in one pass", typ)
		}
	}
	return out
}

// mutate changes one value somewhere in v: another kind of value, a bound crossed, a property
// taken away or added.
func mutate(r *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		switch {
		case len(keys) > 0 && r.IntN(4) == 0:
			delete(x, keys[r.IntN(len(keys))])
		case r.IntN(5) == 0:
			x[[]string{"extra", "Title", "valu\u00e9", "label"}[r.IntN(4)]] = mutate(r, nil)
		case len(keys) > 0:
			k := keys[r.IntN(len(keys))]
			x[k] = mutate(r, x[k])
		}
		return x
	case []any:
		switch {
		case len(x) > 0 && r.IntN(3) > 0:
			i := r.IntN(len(x))
			x[i] = mutate(r, x[i])
		case r.IntN(2) == 0:
			return append(x, mutate(r, nil))
		case len(x) > 0:
			return x[1:]
		}
		return x
	}
	return []any{nil, true, false, "", "low", "a", `"c"`, "x\u00e9", 0.0, -0.0, 1.0, 1.5, -128.0, -129.0, 127.0, 255.0, 256.0, -1.0,
		1e300, map[string]any{}, []any{}, []any{"a", "b"}, map[string]any{"label": "x", "score": 1.0}}[r.IntN(23)]
}

// textMutations change the text where a decoded value cannot: numbers written otherwise, escaped
// names, broken syntax, invalid UTF-8.
var textMutations = []func(r *rand.Rand, s []byte) []byte{
	func(r *rand.Rand, s []byte) []byte { return s[:r.IntN(len(s)+1)] },
	func(r *rand.Rand, s []byte) []byte {
		i := r.IntN(len(s) + 1)
		return slices.Concat(s[:i], []byte{`"\,:{}[]1e-0.tfn \xff\u`[r.IntN(22)]}, s[i:])
	},
	func(r *rand.Rand, s []byte) []byte {
		alt := [][2]string{{`"label"`, `"\u006cabel"`}, {`"title"`, `"tit\u006ce"`}, {`1,`, `1.0,`}, {`0,`, `0e5,`},
			{`2,`, `2E400,`}, {`1,`, `1e-400,`}, {`"low"`, `"lo\u0077"`}, {`"a"`, `"\u0061"`}, {`null`, `nul`},
			{`:`, ` : `}, {`"`, "\"\xc3("}, {`12`, `-12.5`}, {`3`, `0003`}, {`"x`, `"\ud800x`}, {`5`, `5e999`}, {`0`, `0.5`}, {`7`, `7E+0`}}[r.IntN(17)]
		i := r.IntN(len(s) + 1)
		j := slices.Index([]byte(string(s[i:])), alt[0][0])
		if k := string(s[i:]); j >= 0 && len(k) >= j+len(alt[0]) && k[j:j+len(alt[0])] == alt[0] {
			return slices.Concat(s[:i+j], []byte(alt[1]), s[i+j+len(alt[0]):])
		}
		return s
	},
	func(r *rand.Rand, s []byte) []byte {
		// A number written another way, or not quite a number.
		var starts []int
		for i := 1; i < len(s); i++ {
			if (s[i] == '-' || s[i] >= '0' && s[i] <= '9') && (s[i-1] == ':' || s[i-1] == ',' || s[i-1] == '[') {
				starts = append(starts, i)
			}
		}
		if len(starts) == 0 {
			return s
		}
		i := starts[r.IntN(len(starts))]
		j := i + 1
		for j < len(s) && slices.Contains([]byte("0123456789.eE+-"), s[j]) {
			j++
		}
		other := []string{"0003", "01", "5e999", "-0", "1.0", "1e2", "1E+2", "-", "1.", ".5", "1e", "2E400", "1e-400",
			"127.5", "-128.0", "255", "256", "-1", "1e308", "12345678901234567890123", "0.1e1", "-0.0", "1" + strings.Repeat("0", 310)}[r.IntN(23)]
		return slices.Concat(s[:i], []byte(other), s[j:])
	},
}

// TestQuickSchemaAgreesWithTheValidator checks that validating objects through QuickSchema
// decides as the validator alone did, with the same error, on random values valid and not.
func TestQuickSchemaAgreesWithTheValidator(t *testing.T) {
	t.Parallel()
	schemas := quickSchemas(t)
	r := rand.New(rand.NewPCG(*objectSeed, 3))
	ctx := context.Background()
	proven, valid := 0, 0
	for n := range Scaled(3000) { // a tenth under the race detector: one goroutine's parsing
		var value any
		var name string
		switch n % 4 {
		case 0:
			value, name = genValue(r), "infergate.propValue"
		case 1:
			value, name = []propItem{genItem(r), genItem(r)}, "[]infergate.propItem"
		case 2:
			value, name = quickScalar(r.IntN(256)-128), "infergate.quickScalar"
		case 3:
			value, name = quickShapes{Maps: map[string][]float64{genString(r, 4): {1.5, 2}}, Small: uint8(r.IntN(256)), Enum: []string{"", "a", `"c"`}[r.IntN(3)]}, "infergate.quickShapes"
		}
		text := mustJSON(t, value)
		call := r.IntN(2) == 0
		if call && name != "infergate.propValue" && name != "infergate.quickShapes" {
			text = mustJSON(t, map[string]json.RawMessage{"value": text})
		}
		if call {
			name += " call"
		}
		schema := schemas[name]
		for m := range 1 + r.IntN(3) {
			switch {
			case m == 0 && r.IntN(3) == 0: // unchanged
			case r.IntN(2) == 0:
				var generic any
				if json.Unmarshal(text, &generic) == nil {
					text = mustJSON(t, mutate(r, generic))
				}
			default:
				text = textMutations[r.IntN(len(textMutations))](r, text)
			}
		}
		got := (&objectRun{}).validate(ctx, text, schema, "the value")
		want := validateSlowly(ctx, text, schema, "the value")
		if fmt.Sprint(got) != fmt.Sprint(want) || reflect.TypeOf(got) != reflect.TypeOf(want) {
			t.Fatalf("%s, %s:\n got %v\nwant %v", name, text, got, want)
		}
		if want == nil {
			valid++
		}
		if schema.ProvenValid(ctx, text) {
			proven++
			if want != nil {
				t.Fatalf("%s, %s: proven valid, but the validator says %v", name, text, want)
			}
		}
	}
	// The values left valid are proven so in one pass, bar the few written in ways it leaves to
	// the validator.
	if valid < Scaled(500) || proven < valid*9/10 {
		t.Fatalf("%d values proven valid of %d valid", proven, valid)
	}
}

// FuzzQuickSchema checks that validating an object through QuickSchema decides as the validator
// alone does, with the same error, on any text.
func FuzzQuickSchema(f *testing.F) {
	_, raw := benchObject(f)
	f.Add(raw[:2000])
	f.Add([]byte(`{"value":-128}`))
	f.Add([]byte(`{"maps":{"a":[1.5,2e3]},"small":255,"enum":"\"c\"","any":[{"x":null}]}`))
	ts := schemaOf(reflect.TypeFor[propValue]())
	scalar, shapes := schemaOf(reflect.TypeFor[quickScalar]()), schemaOf(reflect.TypeFor[quickShapes]())
	for _, s := range []*typeSchema{ts, scalar, shapes} {
		if err := s.forObjects(); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		ctx := context.Background()
		for _, schema := range []*schemacheck.Checked{ts.resolved, shapes.resolved, scalar.call.resolved, scalar.resolved} {
			got := (&objectRun{}).validate(ctx, text, schema, "the value")
			want := validateSlowly(ctx, text, schema, "the value")
			if fmt.Sprint(got) != fmt.Sprint(want) || reflect.TypeOf(got) != reflect.TypeOf(want) {
				t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
			}
		}
	})
}
