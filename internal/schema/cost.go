package schema

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaCost is what applying one schema to a value costs the validator, beyond the subschemas it
// applies, and what its failure costs: the validator's error quotes the value.
type schemaCost struct {
	values      int   // enum entries and const, each compared with the value
	valueSize   int64 // their size, in units (see weight)
	valueBytes  int64 // and quoted, in bytes
	names       int   // properties, required and dependentRequired names looked up in an object
	nameBytes   int   // required names, listed when missing
	patterns    int   // patternProperties, each matched against every property name
	patternSize int   // their compiled sizes, summed
	pattern     int   // pattern's compiled size
	branches    int   // anyOf and oneOf, named in their errors
	strings     bool  // minLength, maxLength or pattern: a string is measured, and quoted on failure
	numbers     bool  // numeric keywords
	unique      bool  // uniqueItems: every item is hashed
	keys        bool  // the object's properties are iterated
	quotes      bool  // a failure quotes the value: type, enum, const, contains
}

// costOf sums up what a schema's own keywords cost.
func costOf(s *jsonschema.Schema) schemaCost {
	c := schemaCost{
		values: len(s.Enum), names: len(s.Properties) + len(s.Required), patterns: len(s.PatternProperties),
		branches: len(s.AnyOf) + len(s.OneOf), strings: s.MinLength != nil || s.MaxLength != nil || s.Pattern != "",
		numbers: s.MultipleOf != nil || s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil,
		unique:  s.UniqueItems,
		keys: len(s.PatternProperties) > 0 || s.AdditionalProperties != nil || s.PropertyNames != nil ||
			s.UnevaluatedProperties != nil,
		quotes: s.Type != "" || len(s.Types) > 0 || s.Enum != nil || s.Const != nil || s.Contains != nil,
	}
	var m measurer
	for _, v := range s.Enum {
		c.addValue(m.size(v))
	}
	if s.Const != nil {
		c.values++
		c.addValue(m.size(*s.Const))
	}
	for _, name := range s.Required {
		c.nameBytes += len(name) + 3
	}
	for _, names := range s.DependentRequired {
		c.names += len(names)
	}
	for _, names := range s.DependencyStrings {
		c.names += len(names)
	}
	for pattern := range s.PatternProperties {
		c.patternSize += patternSize(pattern)
	}
	if s.Pattern != "" {
		c.pattern = patternSize(s.Pattern)
	}
	return c
}

func (c *schemaCost) addValue(s size) {
	c.valueSize += s.weight()
	c.valueBytes += s.bytes
}

// visit returns the work of applying the schema to v (in units), and of its failure: the bytes of
// the message it makes, and the units formatting it takes. The constants are upper bounds measured
// on the costliest shapes of each (BenchmarkSchemaBound). Products are in int64, which no JSON
// value held in memory overflows.
func (c *schemaCost) visit(v any, m *measurer) (work, message, format int64) {
	message = 64 + 24*int64(c.branches)
	work = c.valueSize / 4
	if c.quotes {
		size := m.size(v)
		message += size.bytes + c.valueBytes
		format = size.nodes/2 + c.valueSize/2
	}
	switch v := v.(type) {
	case map[string]any:
		work += int64(c.names) / 16
		message += int64(c.nameBytes)
		if c.keys {
			var keyBytes int64
			for key := range v {
				keyBytes += int64(len(key)) + 3
			}
			work += int64(len(v)) / 8
			message += keyBytes
			if c.patterns > 0 {
				work += int64(len(v))*int64(c.patterns) + keyBytes*int64(c.patternSize)/32
			}
		}
	case string:
		if c.pattern > 0 {
			work += 1 + int64(len(v))*int64(c.pattern)/32
		}
		if c.strings {
			work += int64(len(v)) / 1024
			message += int64(len(v))
			format += int64(len(v)) / 256
		}
	case []any:
		if c.unique {
			work += m.size(v).weight() / 2
		}
	case float64:
		if c.numbers {
			work++
		}
	}
	return work + m.take(), message, format
}

// size is a JSON value's size: its nodes, and the bytes it takes when the validator quotes it.
type size struct{ nodes, bytes int64 }

// weight is the value's size in units of work: a node, or 16 bytes.
func (s size) weight() int64 { return s.nodes + s.bytes/16 }

func (s *size) add(t size) {
	s.nodes, s.bytes = s.nodes+t.nodes, s.bytes+t.bytes
}

func leafSize(v any) size {
	switch v := v.(type) {
	case string:
		return size{1, 8 + int64(len(v))}
	case float64:
		return size{1, 24}
	}
	return size{1, 8}
}

// measurer measures values. It remembers the size of each large object and array it measured, so
// that a value is measured about once however many schemas apply to it and however deep it is; a
// small one is measured again, which costs less than remembering it. What measuring costs is
// charged by take.
type measurer struct {
	known    map[uintptr]size
	measured int
	list     []container // reused
}

// container is an object or array being measured.
type container struct {
	v      any
	key    uintptr
	parent int
	size   size
}

// remembered is the size from which a container's size is remembered.
const remembered = 64

// take returns the units of work measuring took since it was last called.
func (m *measurer) take() int64 {
	w := m.measured / 64
	m.measured %= 64
	return int64(w)
}

func (m *measurer) size(v any) size {
	key, ok := containerKey(v)
	if !ok {
		return leafSize(v)
	}
	if s, ok := m.known[key]; ok {
		return s
	}
	// Containers are listed parents first, so that summing them from the end totals each one's
	// children before its parent.
	m.list = append(m.list[:0], container{v: v, key: key, parent: -1})
	for i := 0; i < len(m.list); i++ {
		m.list[i].size.add(size{1, 8})
		switch c := m.list[i].v.(type) {
		case map[string]any:
			m.measured += len(c)
			for k, child := range c {
				m.list[i].size.add(size{0, int64(len(k)) + 2})
				m.add(child, i)
			}
		case []any:
			m.measured += len(c)
			for _, child := range c {
				m.add(child, i)
			}
		}
		m.list[i].v = nil
	}
	for i := len(m.list) - 1; i > 0; i-- {
		c := &m.list[i]
		if c.size.nodes >= remembered {
			m.remember(c.key, c.size)
		}
		m.list[c.parent].size.add(c.size)
	}
	total := m.list[0].size
	if total.nodes >= remembered {
		m.remember(key, total)
	}
	return total
}

// add counts a child of the parent-th container: a leaf or a container measured before at once,
// another container once it is listed.
func (m *measurer) add(child any, parent int) {
	k, ok := containerKey(child)
	if !ok {
		m.list[parent].size.add(leafSize(child))
		return
	}
	if s, ok := m.known[k]; ok {
		m.list[parent].size.add(s)
		return
	}
	m.list = append(m.list, container{v: child, key: k, parent: parent})
}

func (m *measurer) remember(key uintptr, s size) {
	if m.known == nil {
		m.known = map[uintptr]size{}
	}
	m.known[key] = s
}

// containerKey identifies a non-empty object or array by its storage; ok is false for the rest.
func containerKey(v any) (uintptr, bool) {
	switch c := v.(type) {
	case map[string]any:
		if len(c) > 0 {
			return reflect.ValueOf(v).Pointer(), true
		}
	case []any:
		if len(c) > 0 {
			return reflect.ValueOf(v).Pointer(), true // v, not c: an interface from c would be allocated
		}
	}
	return 0, false
}

// A pending application of a schema to a value, or (exit) the end of one, once all it applies is
// walked.
type pending struct {
	node  int32
	depth int32
	role  edgeRole
	exit  bool
	v     any
}

// An application of a schema being walked: what its failure would cost, gathered from what it
// applies. The validator stops at a schema's first failing subschema and wraps that one's message,
// so the costliest one counts; anyOf joins all its failures; a condition's failure (oneOf, not, if,
// contains) is not passed on, but each one costs what it costs.
type open struct {
	role                edgeRole
	message, format     int64 // its own failure
	wrap                int64 // the prefix the validator adds to a message passing through it
	seqBytes, anyBytes  int64
	seqChain, seqFormat int64
}

// bound walks the value the way the validator would, visiting every subschema that could apply,
// and adds up the work, which it returns: ErrTooCostly when it exceeds maxValidationWork or
// nests deeper than maxValidationDepth, ctx's cause when ctx ends first. The walk keeps its own
// stack.
func (g *schemaGraph) bound(ctx context.Context, instance any) (int64, error) {
	var m measurer
	work := int64(1)
	stack := []pending{{node: 0, role: roleCond, v: instance}}
	var opened []open
	for visits := 0; len(stack) > 0; {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.exit {
			work += g.close(&opened)
		} else {
			if visits++; visits%1024 == 0 && ctx.Err() != nil {
				return work, context.Cause(ctx)
			}
			if p.depth >= maxValidationDepth {
				return work, fmt.Errorf("%w: the value and the schema nest more than %d levels deep", ErrTooCostly, maxValidationDepth)
			}
			n := &g.nodes[p.node]
			w, message, format := n.cost.visit(p.v, &m)
			work += w
			opened = append(opened, open{role: p.role, message: message, format: format, wrap: 16 + int64(g.nameLen(p.node))})
			stack = append(stack, pending{exit: true})
			before := len(stack)
			if work < maxValidationWork {
				stack = g.children(stack, n, p)
			}
			work += int64(len(stack) - before)
		}
		if work > maxValidationWork {
			return work, fmt.Errorf("%w: more than %d steps", ErrTooCostly, maxValidationWork)
		}
	}
	return work, nil
}

// close ends the innermost open application and returns the work its failure would cost, if it is
// one whose failure the validator formats and stops at (the root, an anyOf branch, a condition).
func (g *schemaGraph) close(opened *[]open) int64 {
	o := (*opened)[len(*opened)-1]
	*opened = (*opened)[:len(*opened)-1]
	message := o.wrap + max(o.message, o.seqBytes, o.anyBytes)
	chain := message + o.seqChain
	format := max(o.format, o.seqFormat)
	if len(*opened) > 0 {
		parent := &(*opened)[len(*opened)-1]
		switch o.role {
		case roleSeq:
			parent.seqBytes = max(parent.seqBytes, message)
			parent.seqChain = max(parent.seqChain, chain)
			parent.seqFormat = max(parent.seqFormat, format)
			return 0
		case roleAny:
			parent.anyBytes += message
		}
	}
	return chain/copyBytesPerUnit + format
}

// nameLen is the length of the name the validator's messages give a schema: its $id, or its JSON
// Pointer ("root" for the root).
func (g *schemaGraph) nameLen(i int32) int {
	n := &g.nodes[i]
	switch {
	case n.s.ID != "":
		return len(n.s.ID)
	case i == 0:
		return len("root")
	}
	return n.pathLen
}

// children appends what applying node n to p.v applies in turn.
func (g *schemaGraph) children(stack []pending, n *schemaNode, p pending) []pending {
	push := func(node int32, role edgeRole, v any) {
		if node >= 0 {
			stack = append(stack, pending{node: node, depth: p.depth + 1, role: role, v: v})
		}
	}
	for _, e := range n.same {
		push(e.node, e.role, p.v)
	}
	switch v := p.v.(type) {
	case map[string]any:
		for _, e := range n.when {
			if _, ok := v[e.key]; ok {
				push(e.node, roleSeq, v)
			}
		}
		props := &n.props
		for key, value := range v {
			node, named := props.named[key]
			if named {
				push(node, roleSeq, value)
			}
			for _, pattern := range props.patterns {
				if pattern.re.MatchString(key) {
					named = true
					push(pattern.node, roleSeq, value)
				}
			}
			if !named && !props.additionalFalse {
				push(props.additional, roleSeq, value)
			}
			if props.names >= 0 { // a string in an interface takes an allocation
				push(props.names, roleSeq, key)
			}
			push(props.unevalued, roleSeq, value)
		}
	case []any:
		items := &n.items
		for i, item := range v {
			if i < len(items.prefix) {
				push(items.prefix[i], roleSeq, item)
			} else {
				push(items.rest, roleSeq, item)
			}
			push(items.contains, roleCond, item)
			push(items.unevalued, roleSeq, item)
		}
	}
	return stack
}

// explainBudget bounds the walk that explains a failure in words (explain): it follows the schema
// as the validator does, but resolves references its own way, so the validation's bound does not
// cover it.
type explainBudget struct {
	left  int64
	m     measurer
	costs map[*jsonschema.Schema]*schemaCost // each schema's, worked out once
}

func newExplainBudget() *explainBudget {
	return &explainBudget{left: maxValidationWork / 4, costs: map[*jsonschema.Schema]*schemaCost{}}
}

// spend charges applying s to v; false once the budget is spent. Beyond what the validator does,
// the explanation encodes the value once for each enum value, and compiles each pattern it uses.
func (b *explainBudget) spend(s *jsonschema.Schema, v any) bool {
	c := b.costs[s]
	if c == nil {
		cost := costOf(s)
		c = &cost
		b.costs[s] = c
	}
	work, _, format := c.visit(v, &b.m)
	work += 1 + format + int64(c.values)*b.m.size(v).weight()/4
	switch v := v.(type) {
	case map[string]any:
		work += int64(len(v)) * int64(c.patternSize) / 16
	case string:
		work += int64(c.pattern) / 16
	}
	b.left -= work + b.m.take()
	return b.left >= 0
}
