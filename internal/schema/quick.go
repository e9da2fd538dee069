package schema

import (
	"encoding/json"
	"math"

	"github.com/google/jsonschema-go/jsonschema"
)

// QuickSchema checks JSON text against a schema in one pass over the text, without decoding it,
// for the schemas SchemaFor derives from plain Go types: type, enum of scalars, the numeric
// bounds, minItems and maxItems, items, properties, required and additionalProperties, and the
// annotations. It only ever proves a value valid: when it cannot (the value breaks the schema, is
// not JSON, or is anything it is not sure the validator would read the same way), the caller
// validates as it would without it, so that decisions and errors are the validator's.
type QuickSchema struct {
	Root        *Node
	schemaBytes int64 // the size of the schema's JSON, which bounds the names its messages quote
}

// Node is one schema; nil applies to any value.
type Node struct {
	Never     bool  // the schema false
	types     uint8 // a set of quick* bits; 0 when the schema does not say
	enum      []any // string, float64, bool or nil; nil when the schema has none
	hasEnum   bool
	min, max  float64 // bounds on numbers, ±Inf when absent
	exMin     float64
	exMax     float64
	minItems  int
	maxItems  int
	Items     *Node
	Props     map[string]int // property name → index in children
	Children  []*Node
	required  uint64 // bits of children that must be present
	Extra     *Node
	NoExtra   bool // additionalProperties: false
	openExtra bool // additionalProperties absent or true: any other property is fine
	Cost      int64
}

// JSON types, as bits.
const (
	KindNull uint8 = 1 << iota
	KindBoolean
	KindString
	KindArray
	KindObject
	KindInteger
	KindNumber
)

var quickTypeNames = map[string]uint8{"null": KindNull, "boolean": KindBoolean, "string": KindString,
	"array": KindArray, "object": KindObject, "integer": KindInteger, "number": KindNumber | KindInteger}

// quickAnnotations are keywords that do not change what validates.
var quickAnnotations = map[string]bool{"title": true, "description": true, "format": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true}

// newQuickSchema compiles s, nil when it has a keyword QuickSchema does not check. It compiles
// the schema's JSON, which is what the validator's own reading of it round-trips to.
func newQuickSchema(s *jsonschema.Schema) *QuickSchema {
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
	return &QuickSchema{Root: root, schemaBytes: int64(len(text))}
}

// MaxQuickDepth bounds both the schemas compiled and the values checked; deeper ones go to the
// validator.
const MaxQuickDepth = 256

func compileQuick(v any, depth int) (*Node, bool) {
	if depth > MaxQuickDepth {
		return nil, false
	}
	switch v := v.(type) {
	case bool:
		if v {
			return nil, true
		}
		return &Node{Never: true}, true
	case map[string]any:
		n := &Node{min: math.Inf(-1), max: math.Inf(1), exMin: math.Inf(-1), exMax: math.Inf(1), maxItems: -1, openExtra: true}
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
				i, ok := n.Props[s]
				if !ok {
					// A required property the schema does not describe: kept as a child that
					// takes any value, so that its presence is checked as the others are.
					if n.Props == nil {
						n.Props = map[string]int{}
					}
					i = len(n.Children)
					n.Props[s] = i
					n.Children = append(n.Children, nil)
					if n.NoExtra || !n.openExtra {
						return nil, false // it would then be an additional property too
					}
				}
				n.required |= 1 << i
			}
		}
		if len(n.Children) > 64 {
			return nil, false
		}
		n.Cost = 4 + int64(len(n.enum))*8 + int64(len(n.Props))
		return n, true
	}
	return nil, false
}

// compileKeyword adds one keyword to n; false when QuickSchema does not check it.
func (n *Node) compileKeyword(key string, value any, depth int) bool {
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
		n.Items, ok = compileQuick(value, depth+1)
	case "properties":
		props, isMap := value.(map[string]any)
		if !isMap {
			return false
		}
		if n.Props == nil {
			n.Props = make(map[string]int, len(props))
		}
		for name, sub := range props {
			child, compiled := compileQuick(sub, depth+1)
			if !compiled {
				return false
			}
			n.Props[name] = len(n.Children)
			n.Children = append(n.Children, child)
		}
	case "required":
		// after the properties: see compileQuick
	case "additionalProperties":
		if b, isBool := value.(bool); isBool {
			n.NoExtra, n.openExtra = !b, b
			return true
		}
		n.Extra, ok = compileQuick(value, depth+1)
		n.openExtra = ok && n.Extra == nil
		n.NoExtra = ok && n.Extra != nil && n.Extra.Never
	default:
		ok = quickAnnotations[key]
	}
	return ok
}

// valid reports whether raw is proven valid against the schema, and checking it with the
// validator would stay within the validation's bounds.
func (q *QuickSchema) valid(raw []byte) bool { return q.check(raw, false) }

// check is valid, with the Checker's twin chosen by safe.
func (q *QuickSchema) check(raw []byte, safe bool) bool {
	c := Checker{Data: raw, Safe: safe}
	c.space()
	if !c.Value(q.Root, 0) {
		return false
	}
	c.space()
	return c.Pos == len(raw) && c.Within(q)
}

// Checker is one pass over a value's text.
type Checker struct {
	Data     []byte
	Pos      int
	Nodes    int64 // JSON values met
	Work     int64 // the schemas' own costs, summed over the values they applied to
	MaxDepth int64
	// Safe has a number's text copied out of Data to be checked, where the default build views it
	// in place (see viewString); a build with the purego tag copies it either way.
	Safe bool
}

// Within bounds what validating the value would cost the validator, as schemaGraph.bound counts
// it: every value applies at most one schema of the few keywords QuickSchema knows, so the work is
// linear in the values met, plus the messages a failure would build, which quote the value at each
// level it returns through. TestQuickBoundCoversTheValidatorsWalk checks the bound against the walk.
func (c *Checker) Within(q *QuickSchema) bool {
	return c.estimate(q) <= maxValidationWork
}

func (c *Checker) estimate(q *QuickSchema) int64 {
	return c.Work + 6*c.Nodes + (c.MaxDepth+2)*(q.schemaBytes+2*int64(len(c.Data))+40*c.Nodes)/128
}

func (n *Node) allows(bit uint8) bool { return n.types == 0 || n.types&bit != 0 }

func (c *Checker) Value(n *Node, depth int64) bool {
	if depth > MaxQuickDepth || c.Pos >= len(c.Data) {
		return false
	}
	c.Nodes++
	c.MaxDepth = max(c.MaxDepth, depth)
	if n != nil {
		if n.Never {
			return false
		}
		c.Work += n.Cost
	}
	switch b := c.Data[c.Pos]; {
	case b == '{':
		return n.AdmitsContainer(KindObject) && c.object(n, depth)
	case b == '[':
		return n.AdmitsContainer(KindArray) && c.array(n, depth)
	case b == '"':
		start := c.Pos
		escaped, ok := c.str()
		if !ok || n == nil {
			return ok
		}
		if !n.allows(KindString) {
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

// The checks of a value against a node, which Checker and the decoder's checking pass share;
// a nil node admits any value.

// Admits checks a true, false or null.
func (n *Node) Admits(bit uint8, v any) bool {
	return n == nil || n.allows(bit) && (!n.hasEnum || n.inEnum(v))
}

// AdmitsString checks a string, as decoded.
func (n *Node) AdmitsString(s string) bool {
	return n == nil || n.allows(KindString) && (!n.hasEnum || n.inEnum(s))
}

// AdmitsContainer checks that an object or an array (bit) may stand here, before its contents.
func (n *Node) AdmitsContainer(bit uint8) bool {
	return n == nil || n.allows(bit) && !n.hasEnum
}

// AdmitsCount checks an array's number of items.
func (n *Node) AdmitsCount(count int) bool {
	return n == nil || count >= n.minItems && (n.maxItems < 0 || count <= n.maxItems)
}

// HasRequired checks an object's properties met (bits of children) against those it requires.
func (n *Node) HasRequired(met uint64) bool {
	return n == nil || met&n.required == n.required
}

func (n *Node) inEnum(v any) bool {
	for _, e := range n.enum {
		if e == v {
			return true
		}
	}
	return false
}

func (c *Checker) object(n *Node, depth int64) bool {
	c.Pos++
	c.space()
	var seen uint64
	if c.Pos < len(c.Data) && c.Data[c.Pos] == '}' {
		c.Pos++
		return n.HasRequired(0)
	}
	for {
		if c.Pos >= len(c.Data) || c.Data[c.Pos] != '"' {
			return false
		}
		start := c.Pos
		escaped, ok := c.str()
		if !ok {
			return false
		}
		var child *Node
		if n != nil {
			key := c.Data[start+1 : c.Pos-1]
			if escaped {
				s, ok := c.decoded(start, true)
				if !ok {
					return false
				}
				key = []byte(s)
			}
			if i, named := n.Props[string(key)]; named {
				seen |= 1 << i
				child = n.Children[i]
			} else if n.NoExtra {
				return false
			} else {
				child = n.Extra
			}
		}
		c.space()
		if c.Pos >= len(c.Data) || c.Data[c.Pos] != ':' {
			return false
		}
		c.Pos++
		c.space()
		if !c.Value(child, depth+1) {
			return false
		}
		c.space()
		if c.Pos >= len(c.Data) {
			return false
		}
		switch c.Data[c.Pos] {
		case ',':
			c.Pos++
			c.space()
		case '}':
			c.Pos++
			return n.HasRequired(seen)
		default:
			return false
		}
	}
}

func (c *Checker) array(n *Node, depth int64) bool {
	c.Pos++
	c.space()
	var items *Node
	if n != nil {
		items = n.Items
	}
	count := 0
	if c.Pos < len(c.Data) && c.Data[c.Pos] == ']' {
		c.Pos++
	} else {
		for {
			if !c.Value(items, depth+1) {
				return false
			}
			count++
			c.space()
			if c.Pos >= len(c.Data) {
				return false
			}
			if c.Data[c.Pos] == ']' {
				c.Pos++
				break
			}
			if c.Data[c.Pos] != ',' {
				return false
			}
			c.Pos++
			c.space()
		}
	}
	return n.AdmitsCount(count)
}
