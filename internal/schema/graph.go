package schema

import (
	"errors"
	"maps"
	"net/url"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A schemaGraph is a resolved schema seen as the validator walks it: every subschema is a node,
// and a node's edges are the subschemas it applies, to the same value or to a part of it. The
// validator (github.com/google/jsonschema-go) keeps its reference resolution to itself, so the
// graph resolves $ref, $dynamicRef, $id and anchors again, the way it does; tests check the two
// agree. A reference it cannot resolve as the validator did makes the schema unusable for
// validation (errUnresolved), never a guess.
type schemaGraph struct {
	nodes  []schemaNode
	index  map[*jsonschema.Schema]int32
	draft7 bool
}

// schemaNode is one subschema: where it is, what it refers to, and what applying it costs.
type schemaNode struct {
	s       *jsonschema.Schema
	parent  int32  // -1 for the root
	segment string // the JSON Pointer from the parent, e.g. "allOf/0"
	pathLen int    // the length of its JSON Pointer from the root

	base    int32                   // the innermost node with an $id, or the root: what its references resolve against
	uri     *url.URL                // on bases
	anchors map[string]anchorTarget // on bases: $anchor, $dynamicAnchor, and draft-07 "#name" ids

	same  []edge // subschemas applied to the same value
	when  []keyedEdge
	items itemEdges
	props propEdges
	cost  schemaCost
}

type anchorTarget struct {
	node    int32
	dynamic bool
}

// edgeRole says what becomes of a subschema's failure: it fails its parent, it is joined into
// anyOf's error, or it is only a condition (oneOf, not, if, contains) whose error is dropped.
type edgeRole uint8

const (
	roleSeq edgeRole = iota
	roleAny
	roleCond
)

type edge struct {
	node int32
	role edgeRole
}

// keyedEdge is a subschema applied to an object when it has the property key (dependentSchemas,
// draft-07 dependencies).
type keyedEdge struct {
	key  string
	node int32
}

type itemEdges struct {
	prefix              []int32 // prefixItems (draft-07: items as an array)
	rest                int32   // items (draft-07: additionalItems after an items array), -1 if none
	contains, unevalued int32
}

type patternEdge struct {
	re   *regexp.Regexp
	node int32
}

type propEdges struct {
	named                        map[string]int32
	patterns                     []patternEdge
	additional, names, unevalued int32
	additionalFalse              bool // additionalProperties: false, which the validator checks without applying it
}

var (
	noItems = itemEdges{rest: -1, contains: -1, unevalued: -1}
	noProps = propEdges{additional: -1, names: -1, unevalued: -1}
)

var errUnresolved = errors.New("a reference does not resolve as the validator resolves it")

// newSchemaGraph builds the graph of a schema the validator resolved.
func newSchemaGraph(root *jsonschema.Schema) (*schemaGraph, error) {
	g := &schemaGraph{index: map[*jsonschema.Schema]int32{}}
	switch root.Schema {
	case "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
		g.draft7 = true
	}
	uris := map[string]int32{"": 0}
	// Nodes are numbered in the validator's order (a pre-order over children sorted by keyword):
	// which of two equal ids or draft-07 anchors wins depends on it.
	type pending struct {
		s       *jsonschema.Schema
		parent  int32
		segment string
	}
	stack := []pending{{s: root, parent: -1}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.s == nil {
			return nil, errUnresolved
		}
		if _, seen := g.index[p.s]; seen {
			return nil, errUnresolved // not a tree, which Resolve refuses
		}
		i := int32(len(g.nodes))
		g.index[p.s] = i
		n := schemaNode{s: p.s, parent: p.parent, segment: p.segment, items: noItems, props: noProps}
		if p.parent < 0 {
			n.uri = &url.URL{} // the root is reached by the empty URI, as the validator resolves it
		} else {
			n.base = g.nodes[p.parent].base
			n.pathLen = g.nodes[p.parent].pathLen + 1 + len(p.segment)
		}
		g.nodes = append(g.nodes, n)
		if err := g.identify(i, uris); err != nil {
			return nil, err
		}
		var children []pending
		forEachChild(p.s, func(segment string, c *jsonschema.Schema) {
			children = append(children, pending{s: c, parent: i, segment: segment})
		})
		for _, c := range slices.Backward(children) {
			stack = append(stack, c)
		}
	}
	for i := range g.nodes {
		if err := g.link(int32(i), uris); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// identify gives node i the base URI and anchors its $id and anchor keywords declare.
func (g *schemaGraph) identify(i int32, uris map[string]int32) error {
	n := &g.nodes[i]
	s := n.s
	if s.ID != "" && !(g.draft7 && s.Ref != "") {
		id, err := url.Parse(s.ID)
		if err != nil {
			return errUnresolved
		}
		if g.draft7 && id.Fragment != "" {
			g.anchor(n.base, strings.TrimPrefix(s.ID, "#"), i, false)
		} else {
			if id.Fragment != "" {
				return errUnresolved
			}
			uri := g.nodes[n.base].uri.ResolveReference(id)
			if !uri.IsAbs() {
				return errUnresolved
			}
			n.uri, n.base = uri, i
			uris[uri.String()] = i
		}
	}
	if !g.draft7 {
		g.anchor(n.base, s.Anchor, i, false)
		g.anchor(n.base, s.DynamicAnchor, i, true)
	}
	return nil
}

// anchor records name on base. The first schema to take a name keeps it, as in the validator,
// which ignores the others.
func (g *schemaGraph) anchor(base int32, name string, node int32, dynamic bool) {
	if name == "" {
		return
	}
	b := &g.nodes[base]
	if _, taken := b.anchors[name]; taken {
		return
	}
	if b.anchors == nil {
		b.anchors = map[string]anchorTarget{}
	}
	b.anchors[name] = anchorTarget{node: node, dynamic: dynamic}
}

// link resolves node i's references and lists the subschemas it applies.
func (g *schemaGraph) link(i int32, uris map[string]int32) error {
	n := &g.nodes[i]
	s := n.s
	if s.Ref != "" {
		target, _, err := g.resolve(i, s.Ref, uris)
		if err != nil {
			return err
		}
		n.same = append(n.same, edge{target, roleSeq})
		if g.draft7 {
			return nil // draft-07 ignores a $ref's siblings, and so does the validator
		}
	}
	if s.DynamicRef != "" {
		target, dynamic, err := g.resolve(i, s.DynamicRef, uris)
		if err != nil {
			return err
		}
		if dynamic == "" {
			n.same = append(n.same, edge{target, roleSeq})
		} else {
			// Which schema a dynamic reference reaches depends on the schemas being validated:
			// count every one it could reach.
			for _, b := range g.nodes {
				if a, ok := b.anchors[dynamic]; ok && a.dynamic {
					n.same = append(n.same, edge{a.node, roleSeq})
				}
			}
		}
	}
	add := func(role edgeRole, list ...*jsonschema.Schema) {
		for _, c := range list {
			if c != nil {
				n.same = append(n.same, edge{g.index[c], role})
			}
		}
	}
	add(roleSeq, s.AllOf...)
	add(roleAny, s.AnyOf...)
	add(roleCond, s.OneOf...)
	add(roleCond, s.Not, s.If)
	add(roleSeq, s.Then, s.Else)
	when := s.DependentSchemas
	if g.draft7 {
		when = s.DependencySchemas
	}
	for _, key := range slices.Sorted(maps.Keys(when)) {
		n.when = append(n.when, keyedEdge{key, g.index[when[key]]})
	}
	n.items = g.itemEdges(s)
	props, err := g.propEdges(s)
	if err != nil {
		return err
	}
	n.props = props
	n.cost = costOf(s)
	return nil
}

func (g *schemaGraph) node(s *jsonschema.Schema) int32 {
	if s == nil {
		return -1
	}
	return g.index[s]
}

func (g *schemaGraph) itemEdges(s *jsonschema.Schema) itemEdges {
	e := itemEdges{rest: -1, contains: g.node(s.Contains), unevalued: g.node(s.UnevaluatedItems)}
	prefix := s.PrefixItems
	e.rest = g.node(s.Items)
	if g.draft7 {
		prefix = s.ItemsArray
		if prefix != nil {
			e.rest = g.node(s.AdditionalItems)
		}
	}
	for _, c := range prefix {
		e.prefix = append(e.prefix, g.node(c))
	}
	return e
}

func (g *schemaGraph) propEdges(s *jsonschema.Schema) (propEdges, error) {
	e := propEdges{additional: g.node(s.AdditionalProperties), names: g.node(s.PropertyNames),
		unevalued: g.node(s.UnevaluatedProperties)}
	if a := s.AdditionalProperties; a != nil && a.Not != nil && reflect.ValueOf(*a.Not).IsZero() {
		e.additionalFalse = true
	}
	if len(s.Properties) > 0 {
		e.named = make(map[string]int32, len(s.Properties))
		for name, c := range s.Properties {
			e.named[name] = g.node(c)
		}
	}
	for _, pattern := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return e, errUnresolved // Resolve compiled it
		}
		e.patterns = append(e.patterns, patternEdge{re, g.node(s.PatternProperties[pattern])})
	}
	return e, nil
}

// resolve finds the node a reference from node i names, as the validator's resolver does. For a
// reference to a dynamic anchor it also returns the anchor's name.
func (g *schemaGraph) resolve(i int32, ref string, uris map[string]int32) (int32, string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return 0, "", errUnresolved
	}
	u = g.nodes[g.nodes[i].base].uri.ResolveReference(u)
	document := *u
	document.Fragment = ""
	doc, ok := uris[document.String()]
	if !ok {
		return 0, "", errUnresolved // a remote schema: the validator has no loader
	}
	if frag := u.Fragment; frag != "" && !strings.HasPrefix(frag, "/") {
		a, ok := g.nodes[doc].anchors[frag]
		if !ok {
			return 0, "", errUnresolved
		}
		if a.dynamic {
			return a.node, frag, nil
		}
		return a.node, "", nil
	}
	target := pointerTarget(g.nodes[doc].s, u.Fragment)
	if target == nil {
		// The validator fails on some of these and resolves others to no schema, on which it
		// panics when it validates.
		return 0, "", errUnresolved
	}
	return g.index[target], "", nil
}

// patternSize is the size of a compiled regular expression's program, which bounds the work of
// matching it per byte of input.
func patternSize(pattern string) int {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return len(pattern)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return len(pattern)
	}
	return len(prog.Inst)
}
