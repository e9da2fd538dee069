package schema

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// JSON Pointer segments escape "~" and "/".
var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~0", "~", "~1", "/")
)

// pointerTarget follows a JSON Pointer through a schema's keywords, as the validator does; nil
// when it names no schema.
func pointerTarget(s *jsonschema.Schema, pointer string) *jsonschema.Schema {
	if pointer == "" {
		return s
	}
	if pointer[0] != '/' {
		return nil
	}
	segments := strings.Split(pointer[1:], "/")
	var list []*jsonschema.Schema
	var named map[string]*jsonschema.Schema
	inList, inMap := false, false
	for _, seg := range segments {
		if strings.Contains(pointer, "~") {
			seg = pointerUnescaper.Replace(seg)
		}
		switch {
		case inList:
			if seg == "-" || len(seg) > 1 && seg[0] == '0' {
				return nil
			}
			k, err := strconv.Atoi(seg)
			if err != nil || k < 0 || k >= len(list) {
				return nil
			}
			s, inList = list[k], false
		case inMap:
			c, ok := named[seg]
			if !ok {
				return nil
			}
			s, inMap = c, false
		default:
			if s == nil {
				return nil
			}
			var one *jsonschema.Schema
			one, list, named, inList, inMap = keyword(s, seg)
			if !inList && !inMap && one == nil {
				return nil
			}
			s = one
		}
	}
	if inList || inMap {
		return nil
	}
	return s
}

// keyword returns what a schema keyword holds: one schema, a list or a map of them; none of the
// three for a keyword that holds no schema (or an absent one).
func keyword(s *jsonschema.Schema, name string) (one *jsonschema.Schema, list []*jsonschema.Schema, named map[string]*jsonschema.Schema, isList, isMap bool) {
	switch name {
	case "$defs":
		return nil, nil, s.Defs, false, true
	case "definitions":
		return nil, nil, s.Definitions, false, true
	case "dependencies":
		return nil, nil, s.DependencySchemas, false, true
	case "dependentSchemas":
		return nil, nil, s.DependentSchemas, false, true
	case "patternProperties":
		return nil, nil, s.PatternProperties, false, true
	case "properties":
		return nil, nil, s.Properties, false, true
	case "allOf":
		return nil, s.AllOf, nil, true, false
	case "anyOf":
		return nil, s.AnyOf, nil, true, false
	case "oneOf":
		return nil, s.OneOf, nil, true, false
	case "prefixItems":
		return nil, s.PrefixItems, nil, true, false
	case "items":
		if s.Items != nil {
			return s.Items, nil, nil, false, false
		}
		return nil, s.ItemsArray, nil, true, false
	}
	switch name {
	case "additionalItems":
		one = s.AdditionalItems
	case "additionalProperties":
		one = s.AdditionalProperties
	case "contains":
		one = s.Contains
	case "contentSchema":
		one = s.ContentSchema
	case "else":
		one = s.Else
	case "if":
		one = s.If
	case "not":
		one = s.Not
	case "propertyNames":
		one = s.PropertyNames
	case "then":
		one = s.Then
	case "unevaluatedItems":
		one = s.UnevaluatedItems
	case "unevaluatedProperties":
		one = s.UnevaluatedProperties
	}
	return one, nil, nil, false, false
}

// forEachChild calls fn on each subschema of s, in the validator's order: by keyword, then by index
// or name.
func forEachChild(s *jsonschema.Schema, fn func(segment string, c *jsonschema.Schema)) {
	one := func(name string, c *jsonschema.Schema) {
		if c != nil {
			fn(name, c)
		}
	}
	list := func(name string, cs []*jsonschema.Schema) {
		for i, c := range cs {
			fn(name+"/"+strconv.Itoa(i), c)
		}
	}
	named := func(name string, m map[string]*jsonschema.Schema) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fn(name+"/"+pointerEscaper.Replace(k), m[k])
		}
	}
	named("$defs", s.Defs)
	one("additionalItems", s.AdditionalItems)
	one("additionalProperties", s.AdditionalProperties)
	list("allOf", s.AllOf)
	list("anyOf", s.AnyOf)
	one("contains", s.Contains)
	one("contentSchema", s.ContentSchema)
	named("definitions", s.Definitions)
	named("dependencies", s.DependencySchemas)
	named("dependentSchemas", s.DependentSchemas)
	one("else", s.Else)
	one("if", s.If)
	one("items", s.Items)
	list("items", s.ItemsArray)
	one("not", s.Not)
	list("oneOf", s.OneOf)
	named("patternProperties", s.PatternProperties)
	list("prefixItems", s.PrefixItems)
	named("properties", s.Properties)
	one("propertyNames", s.PropertyNames)
	one("then", s.Then)
	one("unevaluatedItems", s.UnevaluatedItems)
	one("unevaluatedProperties", s.UnevaluatedProperties)
}
