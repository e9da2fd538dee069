package infergate

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// explain says in plain words why instance (a decoded JSON value) does not match schema, for the
// model that sent it; the validator's own errors are written for programmers. It covers the keywords
// tool schemas use; for the others, or when it finds nothing, it returns "" and the caller says
// that the arguments do not match the schema.
func explain(root *jsonschema.Schema, instance any) string {
	e := explainer{root: root, budget: newExplainBudget()}
	return e.walk(root, instance, "", 0)
}

type explainer struct {
	root   *jsonschema.Schema
	budget *explainBudget // the walk gives up when it is spent
}

// maxExplainDepth stops the walk on deeply nested values and on $refs that refer to themselves.
const maxExplainDepth = 64

func (e explainer) walk(s *jsonschema.Schema, v any, path string, depth int) string {
	if s == nil || depth > maxExplainDepth || !e.budget.spend(s, v) {
		return ""
	}
	if why := e.walk(e.ref(s.Ref), v, path, depth+1); why != "" {
		return why
	}
	for _, sub := range s.AllOf {
		if why := e.walk(sub, v, path, depth+1); why != "" {
			return why
		}
	}
	if why := checkValue(s, v, path); why != "" {
		return why
	}
	switch v := v.(type) {
	case map[string]any:
		return e.object(s, v, path, depth)
	case []any:
		if n := len(v); s.MinItems != nil && n < *s.MinItems || s.MaxItems != nil && n > *s.MaxItems {
			return fmt.Sprintf("%s must have %s items, not %d.", subject(path), between(s.MinItems, s.MaxItems), n)
		}
		for i, item := range v {
			if why := e.walk(s.Items, item, path+"["+strconv.Itoa(i)+"]", depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// ref returns the schema a local $ref points to (the root, or one of its definitions).
func (e explainer) ref(ref string) *jsonschema.Schema {
	switch {
	case ref == "":
		return nil
	case ref == "#":
		return e.root
	case strings.HasPrefix(ref, "#/$defs/"):
		return e.root.Defs[strings.TrimPrefix(ref, "#/$defs/")]
	case strings.HasPrefix(ref, "#/definitions/"):
		return e.root.Definitions[strings.TrimPrefix(ref, "#/definitions/")]
	}
	return nil
}

func (e explainer) object(s *jsonschema.Schema, v map[string]any, path string, depth int) string {
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			return fmt.Sprintf("%s is required.", subject(join(path, name)))
		}
	}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop, known := s.Properties[name]
		for pattern, sub := range s.PatternProperties {
			if re, err := regexp.Compile(pattern); err == nil && re.MatchString(name) {
				prop, known = sub, true
			}
		}
		if !known && s.AdditionalProperties != nil {
			if isFalse(s.AdditionalProperties) {
				return fmt.Sprintf("%s is not a known property.", subject(join(path, name)))
			}
			prop = s.AdditionalProperties
		}
		if why := e.walk(prop, v[name], join(path, name), depth+1); why != "" {
			return why
		}
	}
	return ""
}

// checkValue checks what applies to the value itself: its type, enum, const, range and length.
func checkValue(s *jsonschema.Schema, v any, path string) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		wanted := make([]string, len(types))
		for i, t := range types {
			wanted[i] = article(t)
		}
		return fmt.Sprintf("%s must be %s, not %s.", subject(path), strings.Join(wanted, " or "), article(typeOf(v)))
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(allowed any) bool { return sameJSON(allowed, v) }) {
		values := make([]string, len(s.Enum))
		for i, allowed := range s.Enum {
			values[i] = jsonText(allowed)
		}
		return fmt.Sprintf("%s must be one of %s.", subject(path), strings.Join(values, ", "))
	}
	if s.Const != nil && !sameJSON(*s.Const, v) {
		return fmt.Sprintf("%s must be %s.", subject(path), jsonText(*s.Const))
	}
	switch v := v.(type) {
	case float64:
		return checkNumber(s, v, path)
	case string:
		if n := utf8.RuneCountInString(v); s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Sprintf("%s must be %s characters long, not %d.", subject(path), between(s.MinLength, s.MaxLength), n)
		}
		if re, err := regexp.Compile(s.Pattern); s.Pattern != "" && err == nil && !re.MatchString(v) {
			return fmt.Sprintf("%s must match the pattern %s.", subject(path), s.Pattern)
		}
	}
	return ""
}

func checkNumber(s *jsonschema.Schema, n float64, path string) string {
	switch {
	case s.Minimum != nil && n < *s.Minimum:
		return fmt.Sprintf("%s must be at least %v.", subject(path), *s.Minimum)
	case s.Maximum != nil && n > *s.Maximum:
		return fmt.Sprintf("%s must be at most %v.", subject(path), *s.Maximum)
	case s.ExclusiveMinimum != nil && n <= *s.ExclusiveMinimum:
		return fmt.Sprintf("%s must be more than %v.", subject(path), *s.ExclusiveMinimum)
	case s.ExclusiveMaximum != nil && n >= *s.ExclusiveMaximum:
		return fmt.Sprintf("%s must be less than %v.", subject(path), *s.ExclusiveMaximum)
	}
	return ""
}

// subject names a value for the model: a property by its path, the whole arguments otherwise.
func subject(path string) string {
	if path == "" {
		return "the arguments"
	}
	return strconv.Quote(path)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// between says "from 1 to 3", "at least 1" or "at most 3".
func between(low, high *int) string {
	switch {
	case low != nil && high != nil:
		return fmt.Sprintf("from %d to %d", *low, *high)
	case low != nil:
		return fmt.Sprintf("at least %d", *low)
	}
	return fmt.Sprintf("at most %d", *high)
}

// isFalse reports whether s is the schema that allows nothing (false, or {"not": {}}).
func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

func hasType(v any, t string) bool {
	return typeOf(v) == t || t == "integer" && isWhole(v)
}

func isWhole(v any) bool {
	f, ok := v.(float64)
	return ok && !math.IsInf(f, 0) && math.Trunc(f) == f
}

// typeOf is the JSON type of a decoded value; a number with a fraction is a "number", one without
// is an "integer" only when compared with a schema that asks for one (see hasType).
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var p, q any
	return json.Unmarshal(x, &p) == nil && json.Unmarshal(y, &q) == nil && reflect.DeepEqual(p, q)
}

func jsonText(v any) string {
	text, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(text)
}
