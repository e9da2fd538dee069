package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrTooCostly is the error of a value that was not checked against its schema because checking
// it would take more work than validation is allowed: Validate's errors wrap it.
var ErrTooCostly = errors.New("infergate: checking the value against its schema would take too much work")

// The bounds of one validation. The validator (github.com/google/jsonschema-go) recurses without a
// budget or a context, so a value is walked the way it would be walked first, and refused when the
// walk exceeds these.
const (
	// maxValidationWork is in units of about one validator step. On the costliest shapes of schema
	// and value (BenchmarkSchemaBound) a unit takes at most ~0.6 µs of one core, so a validation
	// takes at most ~0.15 s; typical tool arguments take a few dozen units.
	maxValidationWork = 1 << 18
	// maxValidationDepth bounds the validator's recursion: each level holds ~4 KB of stack.
	maxValidationDepth = 4096
	// copyBytesPerUnit is how many bytes of error message the validator copies in a unit: it
	// wraps a failure's message again, by copying it, at every level it returns through.
	copyBytesPerUnit = 256
)

// Checked is a resolved schema whose validation is known to end, and is bounded: every
// validation of tools and objects goes through it.
type Checked struct {
	resolved *jsonschema.Resolved
	graph    *schemaGraph
	Quick    *QuickSchema // nil when the schema has keywords it does not check
}

// CycleError is a schema that applies itself to the same value: validating anything against it
// would recurse until the stack overflows, which kills the program.
type CycleError struct{ path string }

func (e *CycleError) Error() string {
	return "it applies itself to the same value (" + e.path + "), so validating anything against it would never end"
}

// Check resolves a schema for validation. It fails with a *CycleError for a schema whose
// validation would never end, errUnresolved for one it cannot follow as the validator does, and
// the validator's error for one the validator cannot resolve.
func Check(s *jsonschema.Schema) (checked *Checked, err error) {
	defer func() {
		if p := recover(); p != nil {
			checked, err = nil, fmt.Errorf("resolving the schema: %v", p)
		}
	}()
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	g, err := newSchemaGraph(s)
	if err != nil {
		return nil, err
	}
	if path := g.cycle(); path != "" {
		return nil, &CycleError{path: path}
	}
	return &Checked{resolved: resolved, graph: g, Quick: newQuickSchema(s)}, nil
}

// ProvenValid reports whether JSON text is valid against the schema, checked in one pass over
// the text, without decoding it: true only when validate would accept the decoded value. False
// says nothing: the value may still be valid, and validate decides, with its errors.
func (c *Checked) ProvenValid(ctx context.Context, raw []byte) bool {
	return c.Quick != nil && ctx.Err() == nil && c.Quick.valid(raw)
}

// Schema returns the schema as given.
func (c *Checked) Schema() *jsonschema.Schema { return c.resolved.Schema() }

// Resolved returns the resolved schema the validator checks with.
func (c *Checked) Resolved() *jsonschema.Resolved { return c.resolved }

// Validate checks a decoded JSON value against the schema. It fails with ErrTooCostly when
// that would cost more than the bounds allow, and with ctx's cause when ctx ends first.
func (c *Checked) Validate(ctx context.Context, instance any) (err error) {
	if _, err := c.graph.bound(ctx, instance); err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the validator failed: %v", p)
		}
	}()
	return c.resolved.Validate(instance)
}

// cycle returns a cycle of subschemas that apply to the same value, reachable from the root, as
// "# → #/allOf/0 → #"; "" when there is none. Cycles through properties or items are fine: each
// turn descends into the value, which is finite.
func (g *schemaGraph) cycle() string {
	reachable := g.reachable()
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.nodes))
	type step struct {
		node int32
		next int
	}
	for _, start := range reachable {
		if color[start] != white {
			continue
		}
		color[start] = grey
		stack := []step{{node: start}}
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			next := g.sameValue(top.node, top.next)
			if next < 0 {
				color[top.node] = black
				stack = stack[:len(stack)-1]
				continue
			}
			top.next++
			switch color[next] {
			case grey:
				var path []int32
				for i := len(stack) - 1; i >= 0; i-- {
					path = append(path, stack[i].node)
					if stack[i].node == next {
						break
					}
				}
				return g.describe(path)
			case white:
				color[next] = grey
				stack = append(stack, step{node: next})
			}
		}
	}
	return ""
}

// sameValue returns node i's k-th subschema that applies to the same value, -1 past the last.
func (g *schemaGraph) sameValue(i int32, k int) int32 {
	n := &g.nodes[i]
	switch {
	case k < len(n.same):
		return n.same[k].node
	case k < len(n.same)+len(n.when):
		return n.when[k-len(n.same)].node
	}
	return -1
}

// reachable lists the nodes validation can reach from the root.
func (g *schemaGraph) reachable() []int32 {
	seen := make([]bool, len(g.nodes))
	order := []int32{0}
	seen[0] = true
	for k := 0; k < len(order); k++ {
		n := &g.nodes[order[k]]
		next := []int32{n.items.rest, n.items.contains, n.items.unevalued, n.props.additional, n.props.names, n.props.unevalued}
		next = append(next, n.items.prefix...)
		for _, e := range n.same {
			next = append(next, e.node)
		}
		for _, e := range n.when {
			next = append(next, e.node)
		}
		for _, c := range n.props.named {
			next = append(next, c)
		}
		for _, p := range n.props.patterns {
			next = append(next, p.node)
		}
		for _, c := range next {
			if c >= 0 && !seen[c] {
				seen[c] = true
				order = append(order, c)
			}
		}
	}
	return order
}

// describe names a cycle given from its last node back to its first, as "# → #/allOf/0 → #";
// the middle of a long one is left out.
func (g *schemaGraph) describe(back []int32) string {
	slices.Reverse(back)
	names := make([]string, 0, len(back)+1)
	for i, node := range back {
		if len(back) > 8 && i >= 4 && i < len(back)-3 {
			if i == 4 {
				names = append(names, "…")
			}
			continue
		}
		names = append(names, g.pointer(node))
	}
	return strings.Join(append(names, g.pointer(back[0])), " → ")
}

// pointer is node i's JSON Pointer from the root, as a fragment ("#/allOf/0"), shortened when long.
func (g *schemaGraph) pointer(i int32) string {
	var segments []string
	for ; i > 0; i = g.nodes[i].parent {
		segments = append(segments, g.nodes[i].segment)
	}
	var b strings.Builder
	b.WriteString("#")
	for k := len(segments) - 1; k >= 0; k-- {
		b.WriteString("/" + segments[k])
	}
	if s := b.String(); len(s) > 120 {
		return s[:50] + "…" + s[len(s)-50:]
	}
	return b.String()
}
