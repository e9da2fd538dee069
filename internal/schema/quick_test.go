package schema

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type boundItem struct {
	Label string   `json:"label"`
	Score float64  `json:"score"`
	Tags  []string `json:"tags,omitempty"`
	Note  *string  `json:"note,omitempty"`
}

// quickChecked is the checked form of the schema jsonschema-go derives for T, which must be
// checked in one pass.
func quickChecked[T any](tb testing.TB) *Checked {
	tb.Helper()
	s, err := jsonschema.For[T](nil)
	if err != nil {
		tb.Fatal(err)
	}
	checked, err := Check(s)
	if err != nil {
		tb.Fatal(err)
	}
	if checked.Quick == nil {
		tb.Fatalf("%T: its schema is not checked in one pass", *new(T))
	}
	return checked
}

func randomItem(r *rand.Rand) boundItem {
	word := func(n int) string { return strings.Repeat("é\"x", r.IntN(n+1)) }
	it := boundItem{Label: word(4), Score: float64(r.IntN(2000)-1000) / 8}
	for range r.IntN(3) {
		it.Tags = append(it.Tags, word(2))
	}
	if r.IntN(2) == 0 {
		note := word(6)
		it.Note = &note
	}
	return it
}

// TestQuickBoundCoversTheValidatorsWalk checks QuickSchema's bound on the validator's work against
// the work schemaGraph.bound counts, on the values it proves valid, large and deep ones included.
func TestQuickBoundCoversTheValidatorsWalk(t *testing.T) {
	t.Parallel()
	items, anything := quickChecked[[]boundItem](t), quickChecked[map[string]any](t)
	r := rand.New(rand.NewPCG(4, 4))
	deep := any("leaf")
	for range 200 {
		deep = []any{deep}
	}
	values := []struct {
		schema *Checked
		value  any
	}{{anything, map[string]any{}}, {anything, map[string]any{"any": deep, "small": 1}}}
	// Under the race detector, which finds nothing more in one goroutine's counting, every tenth
	// size, from the largest down.
	for n := 99; n >= 0; n -= 100 / scaled(100) {
		list := make([]boundItem, r.IntN(1+n*n/3))
		for i := range list {
			list[i] = randomItem(r)
		}
		values = append(values, struct {
			schema *Checked
			value  any
		}{items, list})
	}
	for _, v := range values {
		text, err := json.Marshal(v.value)
		if err != nil {
			t.Fatal(err)
		}
		c := Checker{Data: text}
		if !c.Value(v.schema.Quick.Root, 0) {
			t.Fatalf("%s: not proven valid", text)
		}
		var instance any
		_ = json.Unmarshal(text, &instance)
		work, err := v.schema.graph.bound(context.Background(), instance)
		if estimate := c.estimate(v.schema.Quick); err != nil || work > estimate {
			t.Fatalf("%d bytes: the walk counts %d (%v), the bound says at most %d", len(text), work, err, estimate)
		}
	}
}

// FuzzQuickCheckTwins feeds the Checker's twins (a number's text viewed in place, and copied) the
// same text, against schemas whose checks read numbers' values: they decide the same.
func FuzzQuickCheckTwins(f *testing.F) {
	for _, seed := range []string{`{"n":3,"m":[1.5,-2e3,7]}`, `[1,2,3]`, `{"n":1e400}`, `{"n":-0.0,"m":[]}`, `12`, `{"label":"a","score":1e-7}`} {
		f.Add([]byte(seed))
	}
	var schemas []*QuickSchema
	for _, text := range []string{
		`{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMaximum":10},"m":{"type":"array","items":{"type":"integer","enum":[1,2,3,7]}}}}`,
		`{"type":"array","items":{"type":"number","maximum":1e300},"maxItems":3}`,
		`{"type":"integer","minimum":-5}`,
	} {
		checked, err := CheckJSON([]byte(text))
		if err != nil || checked == nil || checked.Quick == nil {
			f.Fatalf("%s: %v", text, err)
		}
		schemas = append(schemas, checked.Quick)
	}
	schemas = append(schemas, quickChecked[boundItem](f).Quick)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for i, q := range schemas {
			if viewed, copied := q.check(raw, false), q.check(raw, true); viewed != copied {
				t.Fatalf("%q against schema %d: the viewing twin says %v, the copying one %v", raw, i, viewed, copied)
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
