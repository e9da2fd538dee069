package schema

import (
	"errors"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

var explainCases = flag.Int("explain.cases", 20000, "how many random schema and value pairs TestExplainProperty tries (a tenth under the race detector)")

// explainGen makes random schemas, from the keywords the validator checks, and random values.
type explainGen struct{ r *rand.Rand }

var explainKeys = []string{"a", "b", "c", "x1"}

func (g explainGen) schema(depth int) *jsonschema.Schema {
	r := g.r
	s := &jsonschema.Schema{}
	types := []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	switch r.IntN(4) {
	case 0:
		s.Type = types[r.IntN(len(types))]
	case 1:
		s.Types = []string{types[r.IntN(len(types))], types[r.IntN(len(types))]}
		if s.Types[0] == s.Types[1] {
			s.Types = s.Types[:1]
		}
	}
	ptr := func(n int) *int { return &n }
	num := func(f float64) *float64 { return &f }
	for range r.IntN(4) {
		switch r.IntN(24) {
		case 0:
			s.Enum = []any{"a", 1.0, nil}[:1+r.IntN(3)]
		case 1:
			c := any([]any{"b", 2.0, true}[r.IntN(3)])
			s.Const = &c
		case 2:
			s.Minimum = num(float64(r.IntN(3)))
		case 3:
			s.Maximum = num(float64(r.IntN(3)))
		case 4:
			s.ExclusiveMinimum = num(float64(r.IntN(3)))
		case 5:
			s.ExclusiveMaximum = num(float64(r.IntN(3)))
		case 6:
			s.MultipleOf = num([]float64{2, 0.5}[r.IntN(2)])
		case 7:
			s.MinLength, s.MaxLength = ptr(r.IntN(2)), ptr(1+r.IntN(2))
		case 8:
			s.Pattern = []string{"^a", "b$", "^[0-9]+$"}[r.IntN(3)]
		case 9:
			s.Required = explainKeys[:1+r.IntN(2)]
		case 10:
			s.MinProperties, s.MaxProperties = ptr(r.IntN(2)), ptr(1+r.IntN(2))
		case 11:
			s.DependentRequired = map[string][]string{"a": {"b"}}
		case 12:
			s.UniqueItems = true
		case 13:
			s.MinItems, s.MaxItems = ptr(r.IntN(2)), ptr(1+r.IntN(2))
		case 14:
			s.PropertyNames = &jsonschema.Schema{MaxLength: ptr(1)}
		}
		if depth <= 0 {
			continue
		}
		switch r.IntN(12) {
		case 0:
			s.Properties = map[string]*jsonschema.Schema{"a": g.schema(depth - 1), "b": g.schema(depth - 1)}
		case 1:
			s.AdditionalProperties = g.schema(depth - 1)
			if r.IntN(2) == 0 {
				s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
			}
		case 2:
			s.PatternProperties = map[string]*jsonschema.Schema{"^x": g.schema(depth - 1)}
		case 3:
			s.Items = g.schema(depth - 1)
		case 4:
			s.PrefixItems = []*jsonschema.Schema{g.schema(depth - 1)}
		case 5:
			s.AnyOf = []*jsonschema.Schema{g.schema(depth - 1), g.schema(depth - 1)}
		case 6:
			s.AllOf = []*jsonschema.Schema{g.schema(depth - 1)}
		case 7:
			s.Not = g.schema(depth - 1)
		case 8:
			s.DependentSchemas = map[string]*jsonschema.Schema{"a": g.schema(depth - 1)}
		case 9:
			s.OneOf = []*jsonschema.Schema{g.schema(depth - 1), g.schema(depth - 1)}
		case 10:
			s.Contains = g.schema(depth - 1)
		}
	}
	return s
}

func (g explainGen) value(depth int) any {
	r := g.r
	switch n := r.IntN(8); {
	case n == 0:
		return nil
	case n == 1:
		return r.IntN(2) == 0
	case n == 2:
		return float64(r.IntN(7)-2) / []float64{1, 2}[r.IntN(2)]
	case n == 3:
		return []string{"", "a", "ab", "b", "12", "ba"}[r.IntN(6)]
	case n == 4 && depth > 0:
		out := []any{}
		for range r.IntN(4) {
			out = append(out, g.value(depth-1))
		}
		return out
	case n == 5 && depth > 0:
		out := map[string]any{}
		for range r.IntN(4) {
			out[explainKeys[r.IntN(len(explainKeys))]] = g.value(depth - 1)
		}
		return out
	}
	return "a"
}

// TestExplainProperty checks the explainer against the validator on random schemas and values: it
// finds nothing wrong with a value the validator accepts, says in plain words what is wrong with
// one it refuses, and never passes on the validator's prefixed text.
func TestExplainProperty(t *testing.T) {
	t.Parallel()
	g := explainGen{rand.New(rand.NewPCG(11, 5))}
	refused, plain := 0, 0
	// One goroutine's logic, whose cost is the validator's reflection over each schema: the race
	// detector finds nothing more in the rest of the pairs.
	cases := scaled(*explainCases)
	for range cases {
		s := g.schema(2)
		v := g.value(2)
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("schema %v: %v", s, err)
		}
		verr := resolved.Validate(v)
		e := &explainer{root: s, whole: "the value", budget: maxExplainSteps, work: newExplainBudget()}
		why := e.walk(s, v, "", 0)
		if verr == nil {
			if why != "" {
				t.Fatalf("schema %s, value %s: valid, but explained as %q", JSONText(s), JSONText(v), why)
			}
			continue
		}
		refused++
		if why != "" {
			plain++
		}
		words := Explain(s, v, "the value", verr)
		if words == "" || strings.Contains(words, "validating ") || !strings.HasSuffix(words, ".") {
			t.Fatalf("schema %s, value %s: %q for %v", JSONText(s), JSONText(v), words, verr)
		}
	}
	if refused < cases/4 || plain < refused*9/10 {
		t.Fatalf("%d of %d values refused, %d of them explained in plain words", refused, cases, plain)
	}
	t.Logf("%d of %d values refused, %d of them explained in plain words", refused, cases, plain)
}

func TestExplainFallsBackToTheValidatorsWords(t *testing.T) {
	t.Parallel()
	err := errors.New(`validating root: validating /properties/items/items/properties/price: frobnicate: 3 is not frobbed`)
	if got := Explain(&jsonschema.Schema{}, 3.0, "the value", err); got != `"items[].price" does not match the schema: frobnicate: 3 is not frobbed.` {
		t.Fatalf("got %q", got)
	}
	err = errors.New(`validating root: validating /$defs/x: frobnicate: no`)
	if got := Explain(&jsonschema.Schema{}, 3.0, "the value", err); got != `the value does not match the schema at /$defs/x: frobnicate: no.` {
		t.Fatalf("got %q", got)
	}
}
