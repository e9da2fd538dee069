package gatewaytest

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// SampleFromSchema returns a value that a JSON Schema (decoded into map[string]any, as
// json.Unmarshal gives it) accepts, deterministically, for the keywords schemas derived from Go
// types use, so that it also decodes into the type the schema describes:
//
//   - an object with every property; an array of one item, or of minItems (distinct ones when
//     uniqueItems), within maxItems; a const, or an enum's first value; false; null;
//   - a number: the one nearest 0 within minimum, maximum and their exclusive forms, a multiple of
//     multipleOf; an integer is whole;
//   - a string: one of its format (date-time and date at FixedTime, time, email, hostname, uri,
//     uuid, ipv4, ipv6, duration), one its pattern matches (the shortest, for the usual patterns),
//     base64 for contentEncoding base64, or "example", fitted to minLength and maxLength;
//   - allOf's parts merged, anyOf's and oneOf's first part, a local $ref followed.
//
// Anything else samples as null. A string whose grammar the schema does not state (the text of a
// type that writes itself, without a pattern) samples as "example", which that type may not read:
// such a type can state it with a JSONSchema method (see infergate.SchemaFor).
func SampleFromSchema(schema any) any {
	root, _ := schema.(map[string]any)
	left := maxSampleValues
	return sampler{root: root, left: &left}.sample(schema, 0, 0)
}

const (
	// maxSampleDepth bounds $refs that refer to themselves and very deep schemas.
	maxSampleDepth = 32
	// maxSampleValues bounds the values in a sample, which nested minItems would multiply.
	maxSampleValues = 10000
	// maxPatternSample bounds a string made from a pattern.
	maxPatternSample = 4096
)

type sampler struct {
	root map[string]any
	left *int // values the sample may still hold
}

// sample returns a value of s; variant (from 0) makes items of a uniqueItems array differ.
func (sm sampler) sample(schema any, depth, variant int) any {
	s, ok := schema.(map[string]any)
	if !ok || depth > maxSampleDepth || *sm.left <= 0 {
		return nil
	}
	*sm.left--
	if ref, ok := s["$ref"].(string); ok {
		return sm.sample(sm.resolve(ref), depth+1, variant)
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[min(variant, len(enum)-1)]
	}
	if parts, ok := s["allOf"].([]any); ok && len(parts) > 0 {
		return sm.allOf(s, parts, depth, variant)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if parts, ok := s[key].([]any); ok && len(parts) > 0 {
			return sm.sample(parts[0], depth+1, variant)
		}
	}
	switch schemaType(s) {
	case "object":
		props, _ := s["properties"].(map[string]any)
		out := make(map[string]any, len(props))
		for name, p := range props {
			out[name] = sm.sample(p, depth+1, 0)
		}
		return out
	case "array":
		return sm.array(s, depth)
	case "string":
		return sampleString(s, variant)
	case "integer":
		return sampleNumber(s, true, variant)
	case "number":
		return sampleNumber(s, false, variant)
	case "boolean":
		return variant%2 == 1
	}
	return nil
}

// resolve returns the schema a local $ref names, nil for any other.
func (sm sampler) resolve(ref string) any {
	if ref == "#" {
		return sm.root
	}
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := sm.root[strings.Trim(prefix[1:], "/")].(map[string]any)
			return defs[name]
		}
	}
	return nil
}

// allOf merges the samples of the parts (and of s without allOf) when they are objects, and
// otherwise returns the first part's.
func (sm sampler) allOf(s map[string]any, parts []any, depth, variant int) any {
	rest := make(map[string]any, len(s))
	for k, v := range s {
		if k != "allOf" {
			rest[k] = v
		}
	}
	samples := []any{sm.sample(rest, depth+1, variant)}
	for _, part := range parts {
		samples = append(samples, sm.sample(part, depth+1, variant))
	}
	merged := map[string]any{}
	for _, sample := range samples {
		object, ok := sample.(map[string]any)
		if !ok {
			if sample != nil {
				return sample
			}
			continue
		}
		for k, v := range object {
			merged[k] = v
		}
	}
	return merged
}

func (sm sampler) array(s map[string]any, depth int) []any {
	n := 1
	if m, ok := s["minItems"].(float64); ok && m > 1 {
		n = int(min(m, 16))
	}
	if m, ok := s["maxItems"].(float64); ok && float64(n) > m {
		n = int(max(m, 0))
	}
	prefix, _ := s["prefixItems"].([]any)
	unique, _ := s["uniqueItems"].(bool)
	out := make([]any, n)
	seen := map[string]bool{}
	for i := range out {
		item := s["items"]
		if i < len(prefix) {
			item = prefix[i]
		}
		out[i] = sm.sample(item, depth+1, 0)
		// Items of a uniqueItems array differ: the next variants until one is new.
		for variant := i; unique && variant < i+16; variant++ {
			out[i] = sm.sample(item, depth+1, variant)
			if text, err := json.Marshal(out[i]); err != nil || !seen[string(text)] {
				seen[string(text)] = true
				break
			}
		}
	}
	return out
}

// formatSamples are values of the formats JSON Schema names, of which strings derived from Go types
// use date-time (time.Time) and date.
var formatSamples = map[string]string{
	"date-time":     FixedTime().Format(time.RFC3339Nano),
	"date":          FixedTime().Format(time.DateOnly),
	"time":          FixedTime().Format("15:04:05Z07:00"),
	"email":         "user@example.com",
	"idn-email":     "user@example.com",
	"hostname":      "example.com",
	"idn-hostname":  "example.com",
	"uri":           "https://example.com/",
	"iri":           "https://example.com/",
	"uri-reference": "https://example.com/",
	"iri-reference": "https://example.com/",
	"uuid":          "123e4567-e89b-42d3-a456-426614174000",
	"ipv4":          "192.0.2.1",
	"ipv6":          "2001:db8::1",
	"duration":      "P1D",
}

func sampleString(s map[string]any, variant int) string {
	if text, ok := formatSamples[stringOf(s["format"])]; ok && variant == 0 {
		return text
	}
	text := "example"
	if variant > 0 {
		text = fmt.Sprintf("example%d", variant+1)
	}
	switch {
	case s["pattern"] != nil:
		if match, ok := matching(stringOf(s["pattern"]), variant); ok {
			return match
		}
	case s["contentEncoding"] == "base64":
		text = "ZXhhbXBsZQ==" // "example"
	}
	if low, ok := s["minLength"].(float64); ok && float64(utf8.RuneCountInString(text)) < low {
		text += strings.Repeat("x", int(min(low, maxPatternSample))-utf8.RuneCountInString(text))
	}
	if high, ok := s["maxLength"].(float64); ok && float64(utf8.RuneCountInString(text)) > high {
		text = string([]rune(text)[:max(int(high), 0)])
	}
	return text
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// matching returns a short string the pattern matches: the shortest its syntax tree makes, or, for
// a variant, one with a repeated part or another alternative; ok is false when none is found.
func matching(pattern string, variant int) (string, bool) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	for _, v := range []int{variant, 0} {
		var b strings.Builder
		build(&b, tree.Simplify(), v, 0)
		if re.MatchString(b.String()) {
			return b.String(), true
		}
	}
	return "", false
}

// build writes what re matches, choosing by variant among alternatives and repetitions.
func build(b *strings.Builder, re *syntax.Regexp, variant, depth int) {
	if depth > maxSampleDepth || b.Len() > maxPatternSample {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			b.WriteRune(classRune(re.Rune, variant))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte('a' + variant%26))
	case syntax.OpCapture:
		build(b, re.Sub[0], variant, depth+1)
	case syntax.OpPlus:
		for i := 0; i < 1+variant%8 && b.Len() <= maxPatternSample; i++ {
			build(b, re.Sub[0], variant, depth+1)
		}
	case syntax.OpStar:
		for i := 0; i < variant%8 && b.Len() <= maxPatternSample; i++ {
			build(b, re.Sub[0], variant, depth+1)
		}
	case syntax.OpQuest:
		if variant%2 == 1 {
			build(b, re.Sub[0], variant, depth+1)
		}
	case syntax.OpConcat:
		for i := 0; i < len(re.Sub) && b.Len() <= maxPatternSample; i++ {
			build(b, re.Sub[i], variant, depth+1)
		}
	case syntax.OpAlternate:
		build(b, re.Sub[variant%len(re.Sub)], variant, depth+1)
	}
}

// classRune picks a rune of a class (pairs of low and high runes): a letter or digit when it has
// one, so that samples read well.
func classRune(ranges []rune, variant int) rune {
	for _, want := range []rune{'a', '0', 'A'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want+rune(variant%10) && want+rune(variant%10) <= ranges[i+1] {
				return want + rune(variant%10)
			}
		}
	}
	return ranges[0]
}

// sampleNumber returns the number nearest 0 that minimum, maximum and multipleOf allow.
func sampleNumber(s map[string]any, integer bool, variant int) float64 {
	low, high := math.Inf(-1), math.Inf(1)
	if v, ok := s["minimum"].(float64); ok {
		low = v
	}
	if v, ok := s["maximum"].(float64); ok {
		high = v
	}
	step := 1.0
	if v, ok := s["multipleOf"].(float64); ok && v > 0 {
		step = v
	} else if !integer {
		step = 0.5
	}
	if v, ok := s["exclusiveMinimum"].(float64); ok && v >= low {
		low = math.Floor(v/step)*step + step
	}
	if v, ok := s["exclusiveMaximum"].(float64); ok && v <= high {
		high = math.Ceil(v/step)*step - step
	}
	if integer && step != math.Trunc(step) {
		step = 1
	}
	n := float64(variant) * step
	if n < low {
		n = math.Ceil(low/step)*step + float64(variant)*step
	}
	if n > high {
		n = math.Floor(high/step)*step - float64(variant)*step
	}
	for _, v := range []float64{n, low, high} {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return v // bounds near the ends of float64 leave no multiple of the step
		}
	}
	return 0
}

// schemaType is the schema's type, the first that is not null when it lists several; without one,
// what its keywords imply.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		i := slices.IndexFunc(t, func(v any) bool { return v != "null" })
		if i >= 0 {
			name, _ := t[i].(string)
			return name
		}
		return ""
	}
	switch {
	case s["properties"] != nil:
		return "object"
	case s["items"] != nil || s["prefixItems"] != nil:
		return "array"
	}
	return ""
}
