//go:build unix

package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used: unlike wall time, it hardly moves when other
// programs load the machine.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// costFamily is a kind of schema and value whose cost grows with n.
type costFamily struct {
	name   string
	schema func(n int) string
	value  func(n int) string
}

func repeatJoined(format string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.ReplaceAll(format, "$i", fmt.Sprint(i))
	}
	return strings.Join(parts, ",")
}

func nested(n int, leaf string) string {
	return strings.Repeat(`{"a":`, n) + leaf + strings.Repeat(`}`, n)
}

var (
	wideObject = func(keys int) string { return "{" + repeatJoined(`"k$i":{"a":1,"b":"xx","c":[1,2]}`, keys) + "}" }
	recursive  = `{"type":"object","properties":{"a":{"$ref":"#"}}}`
	typedWide  = `{"type":"object","additionalProperties":{"type":"object","properties":{"a":{"type":"integer"},
		"b":{"type":"string"},"c":{"type":"array","items":{"type":"number"}}}}}`
	constant = func(value string) func(int) string { return func(int) string { return value } }
)

// costFamilies are the costliest shapes found for each part of the cost model, and typical ones.
var costFamilies = []costFamily{
	{"doubling_refs", doublingSchemaText, constant(`{}`)},
	{"deep_tree", constant(recursive), func(n int) string { return nested(n, `{}`) }},
	{"deep_tree_failing", constant(recursive), func(n int) string { return nested(n, `1`) }},
	{"wide_typed_object", constant(typedWide), wideObject},
	{"anyOf_quoting_failures", func(n int) string { return `{"anyOf":[` + repeatJoined(`{"type":"string"}`, n) + `]}` }, constant(wideObject(1000))},
	{"nested_allOf_failing", func(n int) string {
		return strings.Repeat(`{"allOf":[`, n) + `{"type":"string"}` + strings.Repeat(`]}`, n)
	}, constant(`1`)},
	{"ref_chain_failing", func(n int) string {
		var b strings.Builder
		b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
		for i := range n {
			fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"}]},`, i, i+1)
		}
		fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
		return b.String()
	}, constant(`1`)},
	{"anyOf_ref_chains_failing", func(n int) string {
		var b strings.Builder
		b.WriteString(`{"anyOf":[` + repeatJoined(`{"$ref":"#/$defs/d0"}`, n) + `],"$defs":{`)
		for i := range 500 {
			fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"}]},`, i, i+1)
		}
		b.WriteString(`"d500":{"type":"string"}}}`)
		return b.String()
	}, constant(`{}`)},
	{"anyOf_recursion_failing", constant(`{"anyOf":[{"type":"string"},{"type":"object","properties":{"a":{"$ref":"#"}}}]}`),
		func(n int) string { return nested(n, `1`) }},
	{"enum_objects", func(n int) string { return `{"enum":[` + repeatJoined(`{"k$i":1}`, n) + `]}` }, constant(wideObject(1000))},
	{"pattern_long_string", constant(`{"pattern":"^(a|b|c|d|e)*[a-z]{200}x$"}`),
		func(n int) string { return `"` + strings.Repeat("ab", n) + `"` }},
	{"pattern_properties", func(n int) string {
		return `{"patternProperties":{` + repeatJoined(`"^k$i[a-z]{50}$":{"type":"string"}`, n) + `}}`
	}, constant(wideObject(1000))},
	{"unique_items", func(n int) string {
		return `{"uniqueItems":true,"allOf":[` + repeatJoined(`{"uniqueItems":true}`, n) + `]}`
	},
		constant("[" + repeatJoined(`{"a":$i,"b":[1,2,3]}`, 2000) + "]")},
	{"enum_explained", func(n int) string { return `{"properties":{"x":{"enum":[` + repeatJoined(`"v$i"`, n) + `]}}}` },
		constant(`{"x":` + wideObject(200) + `}`)},
}

// largestAccepted returns the family's costliest case within the bound: the largest n the walk
// accepts, found by doubling n, then halving the gap.
func largestAccepted(b *testing.B, f costFamily) (*Checked, any, int64) {
	b.Helper()
	try := func(n int) (*Checked, any, int64, bool) {
		c, err := CheckJSON([]byte(f.schema(n)))
		if err != nil {
			b.Fatalf("n=%d: %v", n, err)
		}
		if c == nil {
			return nil, nil, 0, false // nested too deep to be read
		}
		var v any
		if err := json.Unmarshal([]byte(f.value(n)), &v); err != nil {
			b.Fatal(err)
		}
		w, err := c.graph.bound(context.Background(), v)
		return c, v, w, !errors.Is(err, ErrTooCostly)
	}
	low, high := 0, 1
	for ; high < 1<<22; high *= 2 {
		if _, _, _, ok := try(high); !ok {
			break
		}
		low = high
	}
	for high-low > 1 {
		if mid := (low + high) / 2; func() bool { _, _, _, ok := try(mid); return ok }() {
			low = mid
		} else {
			high = mid
		}
	}
	if low == 0 {
		b.Fatal("no case is accepted")
	}
	checked, value, work, _ := try(low)
	b.Logf("n=%d", low)
	return checked, value, work
}

// BenchmarkSchemaBound measures, for the costliest accepted case of each family, the CPU time of
// the walk and of the validation it stands for (with the explanation of a failure, as a tool's
// check does), per unit of work the walk counted: the validation's ns/unit must stay near 1000 or
// below for the bound to mean a quarter of a second of a core.
func BenchmarkSchemaBound(b *testing.B) {
	for _, f := range costFamilies {
		b.Run(f.name, func(b *testing.B) {
			checked, value, work := largestAccepted(b, f)
			var walk, validation time.Duration
			for b.Loop() {
				start := cpuTime(b)
				if _, err := checked.graph.bound(context.Background(), value); err != nil {
					b.Fatal(err)
				}
				walked := cpuTime(b)
				if err := checked.resolved.Validate(value); err != nil {
					Explain(checked.Schema(), value, "the value", err)
				}
				walk, validation = walk+walked-start, validation+cpuTime(b)-walked
			}
			b.ReportMetric(float64(work), "units")
			b.ReportMetric(float64(walk.Nanoseconds())/(float64(b.N)*float64(work)), "walk-ns/unit")
			b.ReportMetric(float64(validation.Nanoseconds())/(float64(b.N)*float64(work)), "validate-ns/unit")
		})
	}
}
