package infergate

import (
	"encoding/json"
	"math"

	"github.com/google/jsonschema-go/jsonschema"
)

// quickSchema checks JSON text against a schema in one pass over the text, without decoding it,
// for the schemas SchemaFor derives from plain Go types: type, enum of scalars, the numeric
// bounds, minItems and maxItems, items, properties, required and additionalProperties, and the
// annotations. It only ever proves a value valid: when it cannot (the value breaks the schema, is
// not JSON, or is anything it is not sure the validator would read the same way), the caller
// validates as it would without it, so that decisions and errors are the validator's.
type quickSchema struct {
	root        *quickNode
	schemaBytes int64 // the size of the schema's JSON, which bounds the names its messages quote
}

// quickNode is one schema; nil applies to any value.
type quickNode struct {
	never     bool  // the schema false
	types     uint8 // a set of quick* bits; 0 when the schema does not say
	enum      []any // string, float64, bool or nil; nil when the schema has none
	hasEnum   bool
	min, max  float64 // bounds on numbers, ±Inf when absent
	exMin     float64
	exMax     float64
	minItems  int
	maxItems  int
	items     *quickNode
	props     map[string]int // property name → index in children
	children  []*quickNode
	required  uint64 // bits of children that must be present
	extra     *quickNode
	noExtra   bool // additionalProperties: false
	openExtra bool // additionalProperties absent or true: any other property is fine
	cost      int64
}

// JSON types, as bits.
const (
	quickNull uint8 = 1 << iota
	quickBoolean
	quickString
	quickArray
	quickObject
	quickInteger
	quickNumber
)

var quickTypeNames = map[string]uint8{"null": quickNull, "boolean": quickBoolean, "string": quickString,
	"array": quickArray, "object": quickObject, "integer": quickInteger, "number": quickNumber | quickInteger}

// quickAnnotations are keywords that do not change what validates.
var quickAnnotations = map[string]bool{"title": true, "description": true, "format": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true}

// newQuickSchema compiles s, nil when it has a keyword quickSchema does not check. It compiles
// the schema's JSON, which is what the validator's own reading of it round-trips to.
func newQuickSchema(s *jsonschema.Schema) *quickSchema {
	text, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	var generic any
	if json.Unmarshal(text, &generic) != nil {
		return nil
	}
	root, ok := compileQuick(generic, 0)
	if !ok {
		return nil
	}
	return &quickSchema{root: root, schemaBytes: int64(len(text))}
}

// maxQuickDepth bounds both the schemas compiled and the values checked; deeper ones go to the
// validator.
const maxQuickDepth = 256

func compileQuick(v any, depth int) (*quickNode, bool) {
	if depth > maxQuickDepth {
		return nil, false
	}
	switch v := v.(type) {
	case bool:
		if v {
			return nil, true
		}
		return &quickNode{never: true}, true
	case map[string]any:
		n := &quickNode{min: math.Inf(-1), max: math.Inf(1), exMin: math.Inf(-1), exMax: math.Inf(1), maxItems: -1, openExtra: true}
		for key, value := range v {
			if !n.compileKeyword(key, value, depth) {
				return nil, false
			}
		}
		if required, ok := v["required"]; ok {
			names, ok := required.([]any)
			if !ok {
				return nil, false
			}
			for _, name := range names {
				s, ok := name.(string)
				if !ok {
					return nil, false
				}
				i, ok := n.props[s]
				if !ok {
					// A required property the schema does not describe: kept as a child that
					// takes any value, so that its presence is checked as the others are.
					if n.props == nil {
						n.props = map[string]int{}
					}
					i = len(n.children)
					n.props[s] = i
					n.children = append(n.children, nil)
					if n.noExtra || !n.openExtra {
						return nil, false // it would then be an additional property too
					}
				}
				n.required |= 1 << i
			}
		}
		if len(n.children) > 64 {
			return nil, false
		}
		n.cost = 4 + int64(len(n.enum))*8 + int64(len(n.props))
		return n, true
	}
	return nil, false
}

// compileKeyword adds one keyword to n; false when quickSchema does not check it.
func (n *quickNode) compileKeyword(key string, value any, depth int) bool {
	ok := true
	switch key {
	case "type":
		switch t := value.(type) {
		case string:
			n.types, ok = quickTypeNames[t]
		case []any:
			for _, name := range t {
				s, _ := name.(string)
				bit, known := quickTypeNames[s]
				n.types |= bit
				ok = ok && known
			}
			ok = ok && n.types != 0
		default:
			return false
		}
	case "enum":
		values, isList := value.([]any)
		if !isList {
			return false
		}
		n.enum, n.hasEnum = values, true
		for _, e := range values {
			switch e.(type) {
			case string, float64, bool, nil:
			default:
				return false
			}
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		f, isNumber := value.(float64)
		if !isNumber {
			return false
		}
		switch key {
		case "minimum":
			n.min = f
		case "maximum":
			n.max = f
		case "exclusiveMinimum":
			n.exMin = f
		default:
			n.exMax = f
		}
	case "minItems", "maxItems":
		f, isNumber := value.(float64)
		if !isNumber || f < 0 || f != math.Trunc(f) || f > 1<<30 {
			return false
		}
		if key == "minItems" {
			n.minItems = int(f)
		} else {
			n.maxItems = int(f)
		}
	case "items":
		n.items, ok = compileQuick(value, depth+1)
	case "properties":
		props, isMap := value.(map[string]any)
		if !isMap {
			return false
		}
		if n.props == nil {
			n.props = make(map[string]int, len(props))
		}
		for name, sub := range props {
			child, compiled := compileQuick(sub, depth+1)
			if !compiled {
				return false
			}
			n.props[name] = len(n.children)
			n.children = append(n.children, child)
		}
	case "required":
		// after the properties: see compileQuick
	case "additionalProperties":
		if b, isBool := value.(bool); isBool {
			n.noExtra, n.openExtra = !b, b
			return true
		}
		n.extra, ok = compileQuick(value, depth+1)
		n.openExtra = ok && n.extra == nil
		n.noExtra = ok && n.extra != nil && n.extra.never
	default:
		ok = quickAnnotations[key]
	}
	return ok
}

// valid reports whether raw is proven valid against the schema, and checking it with the
// validator would stay within the validation's bounds.
func (q *quickSchema) valid(raw []byte) bool {
	c := quickCheck{data: raw}
	c.space()
	if !c.value(q.root, 0) {
		return false
	}
	c.space()
	return c.pos == len(raw) && c.within(q)
}

// quickCheck is one pass over a value's text.
type quickCheck struct {
	data     []byte
	pos      int
	nodes    int64 // JSON values met
	work     int64 // the schemas' own costs, summed over the values they applied to
	maxDepth int64
}

// within bounds what validating the value would cost the validator, as schemaGraph.bound counts
// it: every value applies at most one schema of the few keywords quickSchema knows, so the work is
// linear in the values met, plus the messages a failure would build, which quote the value at each
// level it returns through. TestQuickBoundCoversTheValidatorsWalk checks the bound against the walk.
func (c *quickCheck) within(q *quickSchema) bool {
	return c.estimate(q) <= maxValidationWork
}

func (c *quickCheck) estimate(q *quickSchema) int64 {
	return c.work + 6*c.nodes + (c.maxDepth+2)*(q.schemaBytes+2*int64(len(c.data))+40*c.nodes)/128
}

func (n *quickNode) allows(bit uint8) bool { return n.types == 0 || n.types&bit != 0 }

func (c *quickCheck) value(n *quickNode, depth int64) bool {
	if depth > maxQuickDepth || c.pos >= len(c.data) {
		return false
	}
	c.nodes++
	c.maxDepth = max(c.maxDepth, depth)
	if n != nil {
		if n.never {
			return false
		}
		c.work += n.cost
	}
	switch b := c.data[c.pos]; {
	case b == '{':
		return n.admitsContainer(quickObject) && c.object(n, depth)
	case b == '[':
		return n.admitsContainer(quickArray) && c.array(n, depth)
	case b == '"':
		start := c.pos
		escaped, ok := c.str()
		if !ok || n == nil {
			return ok
		}
		if !n.allows(quickString) {
			return false
		}
		if n.hasEnum {
			s, ok := c.decoded(start, escaped)
			return ok && n.inEnum(s)
		}
		return true
	case b == 't' || b == 'f' || b == 'n':
		return c.literal(n)
	case b == '-' || b >= '0' && b <= '9':
		return c.number(n)
	}
	return false
}

// The checks of a value against a node, which quickCheck and the decoder's checking pass share;
// a nil node admits any value.

// admits checks a true, false or null.
func (n *quickNode) admits(bit uint8, v any) bool {
	return n == nil || n.allows(bit) && (!n.hasEnum || n.inEnum(v))
}

// admitsString checks a string, as decoded.
func (n *quickNode) admitsString(s string) bool {
	return n == nil || n.allows(quickString) && (!n.hasEnum || n.inEnum(s))
}

// admitsContainer checks that an object or an array (bit) may stand here, before its contents.
func (n *quickNode) admitsContainer(bit uint8) bool {
	return n == nil || n.allows(bit) && !n.hasEnum
}

// admitsCount checks an array's number of items.
func (n *quickNode) admitsCount(count int) bool {
	return n == nil || count >= n.minItems && (n.maxItems < 0 || count <= n.maxItems)
}

// hasRequired checks an object's properties met (bits of children) against those it requires.
func (n *quickNode) hasRequired(met uint64) bool {
	return n == nil || met&n.required == n.required
}

func (n *quickNode) inEnum(v any) bool {
	for _, e := range n.enum {
		if e == v {
			return true
		}
	}
	return false
}

func (c *quickCheck) object(n *quickNode, depth int64) bool {
	c.pos++
	c.space()
	var seen uint64
	if c.pos < len(c.data) && c.data[c.pos] == '}' {
		c.pos++
		return n.hasRequired(0)
	}
	for {
		if c.pos >= len(c.data) || c.data[c.pos] != '"' {
			return false
		}
		start := c.pos
		escaped, ok := c.str()
		if !ok {
			return false
		}
		var child *quickNode
		if n != nil {
			key := c.data[start+1 : c.pos-1]
			if escaped {
				s, ok := c.decoded(start, true)
				if !ok {
					return false
				}
				key = []byte(s)
			}
			if i, named := n.props[string(key)]; named {
				seen |= 1 << i
				child = n.children[i]
			} else if n.noExtra {
				return false
			} else {
				child = n.extra
			}
		}
		c.space()
		if c.pos >= len(c.data) || c.data[c.pos] != ':' {
			return false
		}
		c.pos++
		c.space()
		if !c.value(child, depth+1) {
			return false
		}
		c.space()
		if c.pos >= len(c.data) {
			return false
		}
		switch c.data[c.pos] {
		case ',':
			c.pos++
			c.space()
		case '}':
			c.pos++
			return n.hasRequired(seen)
		default:
			return false
		}
	}
}

func (c *quickCheck) array(n *quickNode, depth int64) bool {
	c.pos++
	c.space()
	var items *quickNode
	if n != nil {
		items = n.items
	}
	count := 0
	if c.pos < len(c.data) && c.data[c.pos] == ']' {
		c.pos++
	} else {
		for {
			if !c.value(items, depth+1) {
				return false
			}
			count++
			c.space()
			if c.pos >= len(c.data) {
				return false
			}
			if c.data[c.pos] == ']' {
				c.pos++
				break
			}
			if c.data[c.pos] != ',' {
				return false
			}
			c.pos++
			c.space()
		}
	}
	return n.admitsCount(count)
}
