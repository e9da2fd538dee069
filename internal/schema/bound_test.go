package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaGen makes random schemas over the keywords the validator knows, with $defs, anchors, $ids
// and references among them, and random values to check against them.
type schemaGen struct {
	rng    *rand.Rand
	draft7 bool
	refs   float64 // how likely a schema is to carry a reference
}

var (
	genRefs = []string{"#", "#/$defs/d0", "#/$defs/d1", "#/$defs/d2", "#/definitions/d0", "#/properties/a",
		"#/properties/a/items", "#/items", "#/allOf/0", "#/anyOf/1", "#/not", "#/prefixItems/0", "#/$defs/d%30",
		"#/$defs/a~1b", "#/$defs/a~0b", "#a0", "#a1", "#f0", "https://x.test/s1", "https://x.test/s1#/$defs/d0",
		"s1", "s2#a0", "#/$defs/d0/properties/a", "#/items/0", "#/dependencies/a", "#/$defs/00", "#/required"}
	genPatterns = []string{"^a", "b$", "^[a-c]+$", "x", "^$"}
	genKeys     = []string{"a", "b", "c", "ab", "x", "a/b", "a~b"}
)

func (g *schemaGen) schema(depth int) map[string]any {
	s := map[string]any{}
	if depth <= 0 {
		if g.rng.IntN(3) == 0 {
			s["type"] = pick(g, "string", "number", "integer", "object", "array", "boolean", "null")
		}
		return s
	}
	sub := func() any {
		if g.rng.IntN(8) == 0 {
			return g.rng.IntN(2) == 0 // true and false are schemas too
		}
		return g.schema(depth - 1 - g.rng.IntN(2))
	}
	subs := func() []any {
		list := make([]any, 1+g.rng.IntN(3))
		for i := range list {
			list[i] = sub()
		}
		return list
	}
	named := func(keys ...string) map[string]any {
		m := map[string]any{}
		for _, k := range keys {
			if g.rng.IntN(2) == 0 {
				m[k] = sub()
			}
		}
		return m
	}
	for range 1 + g.rng.IntN(4) {
		switch g.rng.IntN(24) {
		case 0:
			s["type"] = pick(g, "string", "number", "integer", "object", "array", "boolean", "null")
		case 1:
			s["type"] = []any{pick(g, "string", "number", "object"), pick(g, "null", "array", "integer")}
		case 2:
			s["enum"] = []any{g.value(1), g.value(1), g.value(0)}
		case 3:
			s["const"] = g.value(1)
		case 4:
			s[pick(g, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")] = float64(g.rng.IntN(5) - 2)
			s["multipleOf"] = pick(g, 1.0, 0.5, 2.0)
		case 5:
			s[pick(g, "minLength", "maxLength")] = g.rng.IntN(3)
			s["pattern"] = pick(g, genPatterns...)
		case 6:
			s["properties"] = named(genKeys...)
			s["required"] = []any{pick(g, "a", "b"), pick(g, "c", "x")}
		case 7:
			s["additionalProperties"] = sub()
		case 8:
			s["patternProperties"] = map[string]any{pick(g, genPatterns...): sub()}
		case 9:
			s["propertyNames"] = map[string]any{"maxLength": 1}
			s[pick(g, "minProperties", "maxProperties")] = g.rng.IntN(3)
		case 10:
			if g.draft7 {
				s["dependencies"] = map[string]any{"a": []any{"b"}, "b": sub()}
			} else {
				s["dependentRequired"] = map[string]any{"a": []any{"b"}}
				s["dependentSchemas"] = named("a", "b")
			}
		case 11:
			if g.draft7 && g.rng.IntN(2) == 0 {
				s["items"] = subs()
				s["additionalItems"] = sub()
			} else {
				s["items"] = sub()
			}
		case 12:
			s["prefixItems"] = subs()
		case 13:
			s["contains"] = sub()
			s[pick(g, "minContains", "maxContains")] = g.rng.IntN(3)
		case 14:
			s[pick(g, "minItems", "maxItems")] = g.rng.IntN(3)
			s["uniqueItems"] = g.rng.IntN(2) == 0
		case 15:
			s["allOf"] = subs()
		case 16:
			s["anyOf"] = subs()
		case 17:
			s["oneOf"] = subs()
		case 18:
			s["not"] = sub()
		case 19:
			s["if"], s["then"], s["else"] = sub(), sub(), sub()
		case 20:
			s[pick(g, "unevaluatedProperties", "unevaluatedItems")] = sub()
		case 21:
			s[pick(g, "$defs", "definitions")] = map[string]any{pick(g, "d0", "d1", "d2", "a/b", "a~b", "00"): sub(), "d0": sub()}
		case 22:
			if g.draft7 {
				s["$id"] = pick(g, "#f0", "#f1", "https://x.test/s1", "https://x.test/s2#f0")
			} else {
				s[pick(g, "$anchor", "$dynamicAnchor")] = pick(g, "a0", "a1")
			}
		default:
			s["$id"] = pick(g, "https://x.test/s1", "https://x.test/s2", "s1", "https://x.test/d/s3")
		}
	}
	return s
}

// root makes a schema, then puts references in it: mostly to places and names it has, in every
// form a reference can take, sometimes to ones it lacks.
func (g *schemaGen) root(depth int) map[string]any {
	s := g.schema(depth)
	if g.draft7 {
		s["$schema"] = "http://json-schema.org/draft-07/schema#"
	}
	var places []map[string]any
	targets := slices.Clone(genRefs)
	subschemas(s, "", func(pointer string, sub map[string]any) {
		places = append(places, sub)
		escaped := pointer
		if g.rng.IntN(4) == 0 {
			escaped = strings.ReplaceAll(escaped, "d", "%64")
		}
		targets = append(targets, "#"+escaped, "#"+escaped)
		for _, key := range []string{"$anchor", "$dynamicAnchor", "$id"} {
			if name, ok := sub[key].(string); ok {
				targets = append(targets, "#"+name, name, name+"#/properties/a", name+"#"+escaped)
			}
		}
	})
	for range g.rng.IntN(4) {
		if g.rng.Float64() >= g.refs {
			continue
		}
		keyword, target := "$ref", pick(g, targets...)
		if !g.draft7 && g.rng.IntN(3) == 0 {
			keyword = "$dynamicRef"
			if g.rng.IntN(2) == 0 {
				target = pick(g, "#a0", "#a1")
			}
		}
		pick(g, places...)[keyword] = target
	}
	return s
}

// subschemas calls fn on every schema (object) in s, with its JSON Pointer.
func subschemas(s map[string]any, pointer string, fn func(string, map[string]any)) {
	fn(pointer, s)
	for _, key := range slices.Sorted(maps.Keys(s)) {
		v := s[key]
		switch key {
		case "enum", "const", "required", "type", "dependentRequired":
			continue
		}
		switch v := v.(type) {
		case map[string]any:
			if key == "properties" || key == "patternProperties" || key == "$defs" || key == "definitions" ||
				key == "dependentSchemas" || key == "dependencies" {
				for _, name := range slices.Sorted(maps.Keys(v)) {
					if sub, ok := v[name].(map[string]any); ok {
						subschemas(sub, pointer+"/"+key+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(name), fn)
					}
				}
				continue
			}
			subschemas(v, pointer+"/"+key, fn)
		case []any:
			for i, sub := range v {
				if sub, ok := sub.(map[string]any); ok {
					subschemas(sub, fmt.Sprintf("%s/%s/%d", pointer, key, i), fn)
				}
			}
		}
	}
}

func (g *schemaGen) value(depth int) any {
	switch k := g.rng.IntN(9); {
	case depth > 0 && k < 2:
		m := map[string]any{}
		for range g.rng.IntN(4) {
			m[pick(g, genKeys...)] = g.value(depth - 1)
		}
		return m
	case depth > 0 && k < 4:
		list := make([]any, g.rng.IntN(4))
		for i := range list {
			list[i] = g.value(depth - 1)
		}
		return list
	case k == 4:
		return pick(g, "", "a", "ab", "abc", "x", "a/b")
	case k == 5:
		return pick(g, 0.0, 1.0, -2.0, 0.5, 3.0)
	case k == 6:
		return g.rng.IntN(2) == 0
	case k == 7:
		return nil
	}
	return float64(g.rng.IntN(3))
}

func pick[T any](g *schemaGen, options ...T) T { return options[g.rng.IntN(len(options))] }

// decode turns a generated schema into the validator's form, through JSON as a tool's would be.
func decode(t testing.TB, s map[string]any) *jsonschema.Schema {
	t.Helper()
	text, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(text, &schema); err != nil {
		return nil
	}
	return &schema
}

// TestCheckedSchemaAgreesWithValidator: on random schemas that are not refused and random values,
// the bounded validation accepts exactly what the validator accepts, and never finds a small value
// too costly. It is one goroutine's logic, whose cost is the reflection over each schema: under the
// race detector, which finds nothing more in it, it takes a tenth of the schemas.
func TestCheckedSchemaAgreesWithValidator(t *testing.T) {
	t.Parallel()
	compared, cycles := 0, 0
	for seed := range uint64(scaled(1500)) {
		g := &schemaGen{rng: rand.New(rand.NewPCG(seed, 7)), draft7: seed%4 == 0, refs: 0.15}
		schema := decode(t, g.root(4))
		if schema == nil {
			continue
		}
		checked, err := Check(schema)
		var cycle *CycleError
		switch {
		case errors.As(err, &cycle):
			cycles++
			continue
		case err != nil:
			continue
		}
		for range 10 {
			value := g.value(4)
			got, want := checked.Validate(context.Background(), value), libraryValidate(checked.resolved, value)
			if errors.Is(got, ErrTooCostly) || (got == nil) != (want == nil) {
				text, _ := json.Marshal(schema)
				v, _ := json.Marshal(value)
				t.Fatalf("seed %d: schema %s, value %s: got %v, the validator says %v", seed, text, v, got, want)
			}
			compared++
		}
	}
	if compared < scaled(5000) || cycles == 0 {
		t.Errorf("compared %d values, refused %d cycles: the generator is off", compared, cycles)
	}
}

func libraryValidate(r *jsonschema.Resolved, value any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return r.Validate(value)
}

// TestSchemaGraphResolvesAsValidator: on random schemas full of $ids, anchors and references of
// every form, every reference the validator resolves reaches the same subschema in the graph; the
// graph refuses only the references the validator resolves to no schema. Under the race detector
// it takes a tenth of the schemas, as TestCheckedSchemaAgreesWithValidator does.
func TestSchemaGraphResolvesAsValidator(t *testing.T) {
	t.Parallel()
	resolved := 0
	for seed := range uint64(scaled(3000)) {
		g := &schemaGen{rng: rand.New(rand.NewPCG(seed, 11)), draft7: seed%3 == 0, refs: 0.6}
		schema := decode(t, g.root(3))
		if schema == nil {
			continue
		}
		if compareResolution(t, schema) {
			resolved++
		}
	}
	if resolved < scaled(1000) {
		t.Errorf("only %d random schemas resolved: the generator is off", resolved)
	}
}

// compareResolution checks the graph against the validator's own resolution, read from its
// unexported fields; it reports whether the validator resolved the schema.
func compareResolution(t testing.TB, schema *jsonschema.Schema) bool {
	t.Helper()
	r, err := schema.Resolve(nil)
	if err != nil {
		return false
	}
	want := libraryRefs(r)
	g, err := newSchemaGraph(schema)
	if err != nil {
		if !slices.ContainsFunc(slices.Collect(mapValues(want)), func(l libraryRef) bool {
			return l.hasRef && l.ref == 0 || l.hasDynamic && l.dynamic == 0 && l.anchor == ""
		}) {
			text, _ := json.Marshal(schema)
			t.Fatalf("the graph refuses %s, which the validator resolves to schemas: %v", text, err)
		}
		return true
	}
	for i, n := range g.nodes {
		lib := want[reflect.ValueOf(n.s).Pointer()]
		edges := n.same
		fail := func(what string, got, wanted any) {
			text, _ := json.Marshal(schema)
			t.Fatalf("schema %s: %s of %s reaches %v in the graph, %v in the validator", text, what, g.pointer(int32(i)), got, wanted)
		}
		if n.s.Ref != "" {
			if got := reflect.ValueOf(g.nodes[edges[0].node].s).Pointer(); got != lib.ref {
				fail("$ref "+n.s.Ref, got, lib.ref)
			}
			if g.draft7 {
				continue
			}
			edges = edges[1:]
		}
		if n.s.DynamicRef == "" {
			continue
		}
		var got, wanted []uintptr
		for _, e := range edges[:len(edges)-len(n.s.AllOf)-len(n.s.AnyOf)-len(n.s.OneOf)-count(n.s.Not, n.s.If, n.s.Then, n.s.Else)] {
			got = append(got, reflect.ValueOf(g.nodes[e.node].s).Pointer())
		}
		if lib.anchor == "" {
			wanted = []uintptr{lib.dynamic}
		} else {
			for _, b := range g.nodes {
				if a, ok := b.anchors[lib.anchor]; ok && a.dynamic {
					wanted = append(wanted, reflect.ValueOf(g.nodes[a.node].s).Pointer())
				}
			}
		}
		if !slices.Equal(got, wanted) {
			fail("$dynamicRef "+n.s.DynamicRef, got, wanted)
		}
	}
	return true
}

func count(schemas ...*jsonschema.Schema) int {
	n := 0
	for _, s := range schemas {
		if s != nil {
			n++
		}
	}
	return n
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// libraryRef is what the validator resolved one schema's references to.
type libraryRef struct {
	hasRef, hasDynamic bool
	ref, dynamic       uintptr // the schemas reached, 0 for none
	anchor             string  // the dynamic anchor a $dynamicRef looks up as it validates
}

// libraryRefs reads the validator's resolution, by schema, from Resolved's unexported fields.
func libraryRefs(r *jsonschema.Resolved) map[uintptr]libraryRef {
	refs := map[uintptr]libraryRef{}
	infos := reflect.ValueOf(r).Elem().FieldByName("resolvedInfos").MapRange()
	for infos.Next() {
		info := infos.Value().Elem()
		s := info.FieldByName("s").Elem()
		refs[infos.Key().Pointer()] = libraryRef{
			hasRef:     s.FieldByName("Ref").String() != "",
			hasDynamic: s.FieldByName("DynamicRef").String() != "",
			ref:        info.FieldByName("resolvedRef").Pointer(),
			dynamic:    info.FieldByName("resolvedDynamicRef").Pointer(),
			anchor:     info.FieldByName("dynamicRefAnchor").String(),
		}
	}
	return refs
}

// FuzzSchemaGraph: for any schema the validator resolves, the graph resolves every reference as
// it does (or refuses the schema when one reaches no schema), a schema it finds no cycle in
// validates any value without crashing, and the bounded validation agrees with the validator.
func FuzzSchemaGraph(f *testing.F) {
	for _, seed := range []struct{ schema, value string }{
		{`{"type":"object","allOf":[{"$ref":"#"}]}`, `{}`},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}}}`, `1`},
		{`{"$ref":"#n","$defs":{"x":{"$anchor":"n","not":{"$ref":"#n"}}}}`, `[]`},
		{`{"$id":"https://e.test/r","$ref":"l","$defs":{"l":{"$id":"https://e.test/l","oneOf":[{"$ref":"r"}]}}}`, `"s"`},
		{`{"$dynamicAnchor":"n","properties":{"c":{"items":{"$dynamicRef":"#n"}}}}`, `{"c":[{"c":[]}]}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#a","items":[{"$ref":"#a"}]}},"$ref":"#a"}`, `[[[1]]]`},
		{doublingSchemaText(24), `{}`},
		{`{"properties":{"a":{"$ref":"#/not"}}}`, `{"a":1}`},
		{`{"$defs":{"a/b":{"type":"string"},"a~1b":{"type":"number"}},"properties":{"x":{"$ref":"#/$defs/a~1b"}}}`, `{"x":"s"}`},
	} {
		f.Add(seed.schema, seed.value)
	}
	f.Fuzz(func(t *testing.T, schemaText, valueText string) {
		if jsonDepth([]byte(schemaText)) > maxSchemaNesting {
			return
		}
		var schema jsonschema.Schema
		if json.Unmarshal([]byte(schemaText), &schema) != nil || !supportedDraft(schema.Schema) {
			return
		}
		if !compareResolution(t, &schema) {
			return
		}
		checked, err := Check(&schema)
		if err != nil {
			return
		}
		var value any
		if json.Unmarshal([]byte(valueText), &value) != nil {
			return
		}
		got := checked.Validate(context.Background(), value)
		if errors.Is(got, ErrTooCostly) {
			return
		}
		if want := libraryValidate(checked.resolved, value); (got == nil) != (want == nil) {
			t.Fatalf("bounded validation: %v; the validator: %v", got, want)
		}
	})
}

func doublingSchemaText(depth int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range depth {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"object"}}}`, depth)
	return b.String()
}
