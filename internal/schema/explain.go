package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// explain says in plain words why instance (a decoded JSON value) does not match schema, for the
// model that sent it; the validator's own errors are written for programmers. whole names the value
// itself ("the arguments"), properties are named by their path ("items[2].price"). It knows what the
// validator checks but $dynamicRef, if/then/else, contains and unevaluated properties or items;
// where it finds nothing to say, it says what err, the validator's error, says, without the
// validator's "validating <schema location>" prefixes.
func Explain(root *jsonschema.Schema, instance any, whole string, err error) string {
	e := &explainer{root: root, whole: whole, budget: maxExplainSteps, work: newExplainBudget()}
	if why := e.walk(root, instance, "", 0); why != "" {
		return why
	}
	return e.validatorWords(err)
}

type explainer struct {
	root   *jsonschema.Schema
	whole  string
	budget int            // schemas left to look at
	work   *explainBudget // and the work left to do on them: the walk gives up when it is spent
}

const (
	// maxExplainDepth stops the walk on deeply nested values and on $refs that refer to themselves.
	maxExplainDepth = 64
	// maxExplainSteps bounds the schemas one explanation looks at, which nested anyOf and oneOf
	// would otherwise multiply.
	maxExplainSteps = 10000
)

func (e *explainer) walk(s *jsonschema.Schema, v any, path string, depth int) string {
	if s == nil || depth > maxExplainDepth || e.budget <= 0 {
		return ""
	}
	if !e.work.spend(s, v) {
		e.budget = 0 // nothing more is looked at, and nothing is concluded from what was not
		return ""
	}
	e.budget--
	if why := e.walk(e.ref(s.Ref), v, path, depth+1); why != "" {
		return why
	}
	for _, sub := range s.AllOf {
		if why := e.walk(sub, v, path, depth+1); why != "" {
			return why
		}
	}
	if why := e.choice(s, v, path, depth); why != "" {
		return why
	}
	if why := e.checkValue(s, v, path); why != "" {
		return why
	}
	switch v := v.(type) {
	case map[string]any:
		return e.object(s, v, path, depth)
	case []any:
		return e.array(s, v, path, depth)
	}
	return ""
}

// choice checks anyOf, oneOf and not. Of the branches of anyOf or oneOf the value matches none of,
// it explains the one that takes a value of its type (a null or a number, say), or lists the types
// when none does.
func (e *explainer) choice(s *jsonschema.Schema, v any, path string, depth int) string {
	if s.Not != nil && definite(s.Not) && e.walk(s.Not, v, path, depth+1) == "" && e.budget > 0 {
		if isFalse(s) {
			return fmt.Sprintf("%s is not allowed.", e.subject(path))
		}
		return fmt.Sprintf("%s must not be %s.", e.subject(path), article(typeOf(v))+" like this one")
	}
	if matched := 0; len(s.OneOf) > 1 {
		for _, b := range s.OneOf {
			if definite(b) && e.walk(b, v, path, depth+1) == "" && e.budget > 0 {
				matched++
			}
		}
		if matched > 1 {
			return fmt.Sprintf("%s matches %d of the forms allowed for it, and must match exactly one.", e.subject(path), matched)
		}
	}
	for _, branches := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(branches) == 0 {
			continue
		}
		var types []string
		typed := ""
		for _, b := range branches {
			why := e.walk(b, v, path, depth+1)
			if why == "" {
				return "" // matches one
			}
			if ts := TypesOf(b); len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool { return hasType(v, t) }) {
				types = append(types, ts...)
			} else if typed == "" {
				typed = why
			}
		}
		if typed != "" {
			return typed
		}
		return e.wrongType(types, v, path)
	}
	return ""
}

// definite reports whether the walk checks everything s says, so that finding nothing wrong means
// the value matches s: s and its parts use none of the keywords the walk leaves to the validator
// ($ref and $dynamicRef, if, contains, oneOf, unevaluated items and properties).
func definite(s *jsonschema.Schema) bool {
	if s == nil {
		return true
	}
	if s.Ref != "" || s.DynamicRef != "" || s.If != nil || s.Then != nil || s.Else != nil || s.Contains != nil ||
		len(s.OneOf) > 0 || s.UnevaluatedItems != nil || s.UnevaluatedProperties != nil {
		return false
	}
	parts := [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.PrefixItems, s.ItemsArray,
		{s.Not, s.Items, s.AdditionalItems, s.AdditionalProperties, s.PropertyNames},
		slices.Collect(maps.Values(s.Properties)), slices.Collect(maps.Values(s.PatternProperties)),
		slices.Collect(maps.Values(s.DependentSchemas))}
	for _, list := range parts {
		for _, sub := range list {
			if !definite(sub) {
				return false
			}
		}
	}
	return true
}

// ref returns the schema a local $ref points to (the root, or one of its definitions).
func (e *explainer) ref(ref string) *jsonschema.Schema {
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

func (e *explainer) object(s *jsonschema.Schema, v map[string]any, path string, depth int) string {
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			return fmt.Sprintf("%s is required.", e.subject(join(path, name)))
		}
	}
	names := slices.Sorted(maps.Keys(v))
	for _, name := range names {
		for _, needed := range s.DependentRequired[name] {
			if _, ok := v[needed]; !ok {
				return fmt.Sprintf("%s is required when %s is given.", e.subject(join(path, needed)), e.subject(join(path, name)))
			}
		}
	}
	if n := len(v); s.MinProperties != nil && n < *s.MinProperties || s.MaxProperties != nil && n > *s.MaxProperties {
		return fmt.Sprintf("%s must have %s properties, not %d.", e.subject(path), between(s.MinProperties, s.MaxProperties), n)
	}
	for _, name := range names {
		whole := e.whole
		e.whole = "it" // the name
		why := e.walk(s.PropertyNames, name, "", depth+1)
		e.whole = whole
		if why != "" {
			return fmt.Sprintf("The property name %s is not allowed: %s", e.subject(join(path, name)), why)
		}
		subs := e.propertySchemas(s, name)
		if len(subs) == 0 && s.AdditionalProperties != nil {
			if isFalse(s.AdditionalProperties) {
				return fmt.Sprintf("%s is not a known property.", e.subject(join(path, name)))
			}
			subs = append(subs, s.AdditionalProperties)
		}
		for _, sub := range subs {
			if why := e.walk(sub, v[name], join(path, name), depth+1); why != "" {
				return why
			}
		}
		if why := e.walk(s.DependentSchemas[name], v, path, depth+1); why != "" {
			return why
		}
	}
	return ""
}

// propertySchemas are the schemas that apply to a property by its name: its own, and those of the
// patterns it matches.
func (e *explainer) propertySchemas(s *jsonschema.Schema, name string) []*jsonschema.Schema {
	var subs []*jsonschema.Schema
	if prop, ok := s.Properties[name]; ok {
		subs = append(subs, prop)
	}
	for _, pattern := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		if re, err := regexp.Compile(pattern); err == nil && re.MatchString(name) {
			subs = append(subs, s.PatternProperties[pattern])
		}
	}
	return subs
}

func (e *explainer) array(s *jsonschema.Schema, v []any, path string, depth int) string {
	if n := len(v); s.MinItems != nil && n < *s.MinItems || s.MaxItems != nil && n > *s.MaxItems {
		return fmt.Sprintf("%s must have %s items, not %d.", e.subject(path), between(s.MinItems, s.MaxItems), n)
	}
	if s.UniqueItems {
		seen := make(map[string]int, len(v))
		for i, item := range v {
			text := JSONText(item) // object keys sorted: equal values, equal texts
			if j, ok := seen[text]; ok {
				return fmt.Sprintf("%s must not repeat an item: items %d and %d are the same.", e.subject(path), j, i)
			}
			seen[text] = i
		}
	}
	for i, item := range v {
		sub := s.Items // 2020-12: after prefixItems; draft-07: an array of items, then additionalItems
		switch {
		case len(s.ItemsArray) > 0 && i < len(s.ItemsArray):
			sub = s.ItemsArray[i]
		case len(s.ItemsArray) > 0:
			sub = s.AdditionalItems
		case i < len(s.PrefixItems):
			sub = s.PrefixItems[i]
		}
		if sub != nil && isFalse(sub) {
			return fmt.Sprintf("%s must have at most %d items, not %d.", e.subject(path), i, len(v))
		}
		if why := e.walk(sub, item, path+"["+strconv.Itoa(i)+"]", depth+1); why != "" {
			return why
		}
	}
	return ""
}

// checkValue checks what applies to the value itself: its type, enum, const, range and length.
func (e *explainer) checkValue(s *jsonschema.Schema, v any, path string) string {
	if types := TypesOf(s); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		return e.wrongType(types, v, path)
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(allowed any) bool { return sameJSON(allowed, v) }) {
		values := make([]string, len(s.Enum))
		for i, allowed := range s.Enum {
			values[i] = JSONText(allowed)
		}
		return fmt.Sprintf("%s must be one of %s.", e.subject(path), strings.Join(values, ", "))
	}
	if s.Const != nil && !sameJSON(*s.Const, v) {
		return fmt.Sprintf("%s must be %s.", e.subject(path), JSONText(*s.Const))
	}
	switch v := v.(type) {
	case float64:
		return e.checkNumber(s, v, path)
	case string:
		if n := utf8.RuneCountInString(v); s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Sprintf("%s must be %s characters long, not %d.", e.subject(path), between(s.MinLength, s.MaxLength), n)
		}
		if re, err := regexp.Compile(s.Pattern); s.Pattern != "" && err == nil && !re.MatchString(v) {
			return fmt.Sprintf("%s must match the pattern %s.", e.subject(path), s.Pattern)
		}
	}
	return ""
}

// TypesOf lists the types a schema allows; none means any.
func TypesOf(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func (e *explainer) wrongType(types []string, v any, path string) string {
	var wanted []string
	for _, t := range types {
		if w := article(t); !slices.Contains(wanted, w) {
			wanted = append(wanted, w)
		}
	}
	return fmt.Sprintf("%s must be %s, not %s.", e.subject(path), strings.Join(wanted, " or "), article(typeOf(v)))
}

func (e *explainer) checkNumber(s *jsonschema.Schema, n float64, path string) string {
	switch {
	case s.Minimum != nil && n < *s.Minimum:
		return fmt.Sprintf("%s must be at least %v.", e.subject(path), *s.Minimum)
	case s.Maximum != nil && n > *s.Maximum:
		return fmt.Sprintf("%s must be at most %v.", e.subject(path), *s.Maximum)
	case s.ExclusiveMinimum != nil && n <= *s.ExclusiveMinimum:
		return fmt.Sprintf("%s must be more than %v.", e.subject(path), *s.ExclusiveMinimum)
	case s.ExclusiveMaximum != nil && n >= *s.ExclusiveMaximum:
		return fmt.Sprintf("%s must be less than %v.", e.subject(path), *s.ExclusiveMaximum)
	case s.MultipleOf != nil && *s.MultipleOf > 0 && !isWhole(n / *s.MultipleOf):
		return fmt.Sprintf("%s must be a multiple of %v.", e.subject(path), *s.MultipleOf)
	}
	return ""
}

// subject names a value for the model: a property by its path, the whole value otherwise.
func (e *explainer) subject(path string) string {
	if path == "" {
		return e.whole
	}
	return strconv.Quote(path)
}

// validatorWords is err's message without the "validating <schema location>: " prefixes the
// validator puts before it, naming the place in the value the innermost location stands for.
func (e *explainer) validatorWords(err error) string {
	if err == nil {
		return ""
	}
	msg, location := err.Error(), ""
	for strings.HasPrefix(msg, "validating ") {
		head, rest, ok := strings.Cut(strings.TrimPrefix(msg, "validating "), ": ")
		if !ok {
			break
		}
		location, msg = head, rest
	}
	msg = validatorNoise.ReplaceAllString(msg, "")
	msg = validatorNumber.ReplaceAllString(msg, "$1")
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
	if path, ok := valuePath(location); ok {
		return fmt.Sprintf("%s does not match the schema: %s.", e.subject(path), msg)
	}
	return fmt.Sprintf("%s does not match the schema at %s: %s.", e.whole, location, msg)
}

// validatorNoise is what the validator's messages hold for programmers only: the locations it
// was validating, lists of schemas by their pointers.
var validatorNoise = regexp.MustCompile(`validating [^\s:]+: |\s*\[(<anonymous schema>\s*)+\]`)

// validatorNumber is a whole number as the validator writes it, a fraction over 1 or with zeros
// after the point ("15/1", "10.000000").
var validatorNumber = regexp.MustCompile(`\b(\d+)(?:/1|\.0+)\b`)

// valuePath turns the location of a schema within the root ("/properties/items/items", "root") into
// the path of the value it applies to ("items[]"); ok is false when the location does not say.
func valuePath(location string) (path string, ok bool) {
	if location == "root" || location == "" {
		return "", true
	}
	if !strings.HasPrefix(location, "/") {
		return "", false
	}
	segments := strings.Split(location[1:], "/")
	for i := 0; i < len(segments); i++ {
		next := ""
		if i+1 < len(segments) {
			next = strings.NewReplacer("~1", "/", "~0", "~").Replace(segments[i+1])
		}
		switch segments[i] {
		case "properties":
			path, i = join(path, next), i+1
		case "additionalProperties", "unevaluatedProperties":
			path = join(path, "*")
		case "patternProperties":
			path, i = join(path, "*"), i+1
		case "items", "prefixItems":
			if _, err := strconv.Atoi(next); err == nil {
				path, i = path+"["+next+"]", i+1
			} else {
				path += "[]"
			}
		case "additionalItems", "unevaluatedItems", "contains":
			path += "[]"
		case "allOf", "anyOf", "oneOf", "dependentSchemas":
			i++
		case "not", "if", "then", "else":
		default:
			return "", false
		}
	}
	return path, true
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

func JSONText(v any) string {
	text, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(text)
}
