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

	"github.com/google/jsonschema-go/jsonschema"
)

// validateSlowly is what objectRun.validate did before QuickSchema: the generic decode, the
// bound and jsonschema-go, on every value.
func validateSlowly(ctx context.Context, raw []byte, schema *Checked, whole string) error {
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	err := schema.Validate(ctx, instance)
	if err == nil || errors.Is(err, ErrSchemaTooCostly) || ctx.Err() != nil && err == context.Cause(ctx) {
		return err
	}
	return &schemaMismatch{why: Explain(schema.Schema(), instance, whole, err), err: err}
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
func quickSchemas(t *testing.T) map[string]*Checked {
	out := map[string]*Checked{}
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

// TestQuickBoundCoversTheValidatorsWalk checks QuickSchema's bound on the validator's work against
// the work schemaGraph.bound counts, on the values it proves valid, large and deep ones included.
func TestQuickBoundCoversTheValidatorsWalk(t *testing.T) {
	t.Parallel()
	schemas := quickSchemas(t)
	r := rand.New(rand.NewPCG(*objectSeed, 4))
	deep := any("leaf")
	for range 200 {
		deep = []any{deep}
	}
	values := []struct {
		schema string
		value  any
	}{{"map[string]*infergate.propItem", map[string]any{}}, {"infergate.quickShapes", map[string]any{"maps": map[string]any{}, "small": 1, "any": deep}}}
	// Under the race detector, which finds nothing more in one goroutine's counting, every tenth
	// size, from the largest down.
	for n := 99; n >= 0; n -= 100 / Scaled(100) {
		items := make([]propItem, r.IntN(1+n*n/3))
		for i := range items {
			items[i] = genItem(r)
		}
		values = append(values, struct {
			schema string
			value  any
		}{"[]infergate.propItem", items})
	}
	for _, v := range values {
		schema := schemas[v.schema]
		text := mustJSON(t, v.value)
		c := Checker{Data: text}
		if !c.Value(schema.Quick.Root, 0) {
			t.Fatalf("%s: not proven valid", text)
		}
		var instance any
		_ = json.Unmarshal(text, &instance)
		work, err := schema.graph.bound(context.Background(), instance)
		if estimate := c.estimate(schema.Quick); err != nil || work > estimate {
			t.Fatalf("%d bytes: the walk counts %d (%v), the bound says at most %d", len(text), work, err, estimate)
		}
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
		for _, schema := range []*Checked{ts.resolved, shapes.resolved, scalar.call.resolved, scalar.resolved} {
			got := (&objectRun{}).validate(ctx, text, schema, "the value")
			want := validateSlowly(ctx, text, schema, "the value")
			if fmt.Sprint(got) != fmt.Sprint(want) || reflect.TypeOf(got) != reflect.TypeOf(want) {
				t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
			}
		}
	})
}

// FuzzQuickSchemaOnAnySchema checks QuickSchema on schemas of any shape, as NewToolFromSchema
// takes them: a value it proves valid, the validator accepts.
func FuzzQuickSchemaOnAnySchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a","b"]}`, `{"a":1,"b":null}`)
	f.Add(`{"type":["number","null"],"exclusiveMaximum":2.5,"enum":[1,2,null,"x"]}`, `2.0`)
	f.Add(`{"items":false,"minItems":0,"maxItems":3}`, `[]`)
	f.Add(`{"additionalProperties":{"type":"string","enum":["\u00e9"]},"properties":{"k":true}}`, `{"k":[1],"\u006b2":"é"}`)
	f.Add(`{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"x":{}}}}`, `[{"x":{"y":1e300}}]`)
	f.Fuzz(func(t *testing.T, schemaText, value string) {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schemaText), &s) != nil {
			return
		}
		checked, err := Check(&s)
		if err != nil || checked.Quick == nil || !checked.ProvenValid(context.Background(), []byte(value)) {
			return
		}
		var instance any
		if err := json.Unmarshal([]byte(value), &instance); err != nil {
			t.Fatalf("%s proven valid against %s, but it is not JSON: %v", value, schemaText, err)
		}
		if err := checked.Validate(context.Background(), instance); err != nil {
			t.Fatalf("%s proven valid against %s, but the validator says %v", value, schemaText, err)
		}
	})
}
