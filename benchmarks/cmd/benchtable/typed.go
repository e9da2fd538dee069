package main

import (
	"fmt"
	"slices"
	"strings"
)

// typedRow compares two of infergate's own calls on the same reply: a typed answer and the plain
// call that carries it.
type typedRow struct {
	workload     string
	bench        string
	typed, plain string // sub-benchmarks
	goal         float64
}

var typedRows = []typedRow{
	{"Typed answer, 50 KB object streamed in 4,000 fragments, with partials", "Object", "StreamObject", "Stream", 1.5},
	{"Typed answer, 50 KB object streamed in 4,000 fragments, waited for", "Object", "StreamObjectWait", "Stream", 1.5},
	{"Typed answer, 50 KB object whole", "Object", "GenerateObject", "Create", 1.2},
}

// renderTyped prints the typed answers' table: each call's time, and the typed one's divided by
// the plain one's, the median of the rounds' ratios (each round runs both, one after the other).
// It is empty when the run has none of them.
func renderTyped(s samples) string {
	var b strings.Builder
	for _, r := range typedRows {
		typed, plain := s[key(r.bench, r.typed, "ns/op")], s[key(r.bench, r.plain, "ns/op")]
		if len(typed) == 0 || len(plain) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("| Workload (infergate) | typed call | µs/op | plain call | µs/op | typed ÷ plain | goal |\n|---|---|---:|---|---:|---:|---:|\n")
		}
		t, _ := s.median(r.bench, r.typed, "ns/op")
		p, _ := s.median(r.bench, r.plain, "ns/op")
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s× | ≤ %s× |\n", r.workload, r.typed, number(t/1e3), r.plain, number(p/1e3),
			number(pairedRatio(typed, plain)), number(r.goal))
	}
	return b.String()
}

// pairedRatio is the median of a[i]/b[i] over the rounds both have.
func pairedRatio(a, b []float64) float64 {
	n := min(len(a), len(b))
	ratios := make([]float64, n)
	for i := range n {
		ratios[i] = a[i] / b[i]
	}
	slices.Sort(ratios)
	if n%2 == 1 {
		return ratios[n/2]
	}
	return (ratios[n/2-1] + ratios[n/2]) / 2
}
