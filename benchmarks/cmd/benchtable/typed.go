package main

import (
	"fmt"
	"slices"
	"strings"
)

// typedRow compares a typed answer with another call on the same reply: the plain call that
// carries it, or what a user of another client writes for the same job.
type typedRow struct {
	workload     string
	bench        string
	typed, other string // sub-benchmarks
	goal         float64
}

var typedRows = []typedRow{
	{"Typed answer, 50 KB object streamed in 4,000 fragments, with partials", "Object", "StreamObject", "Stream", 1.5},
	{"Typed answer, 50 KB object streamed in 4,000 fragments, waited for", "Object", "StreamObjectWait", "Stream", 1.5},
	{"Typed answer, 50 KB object whole, against go-openai + `json.Unmarshal` (no check)", "Object", "GenerateObject", "GoOpenAIUnmarshal", 0.25},
	{"Typed answer, 50 KB object whole, against go-openai + `json.Unmarshal` + jsonschema-go", "Object", "GenerateObject", "GoOpenAIValidate", 0.06},
}

// renderTyped prints the typed answers' table: each call's time, and the typed one's divided by
// the other's, the median of the rounds' ratios (each round runs both, one after the other), of
// wall time and, when the run reports it, of CPU time. It is empty when the run has none of them.
func renderTyped(s samples) string {
	var b strings.Builder
	for _, r := range typedRows {
		typed, other := s[key(r.bench, r.typed, "ns/op")], s[key(r.bench, r.other, "ns/op")]
		if len(typed) == 0 || len(other) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("| Workload (infergate) | typed call | µs/op | against | µs/op | ratio, wall | ratio, CPU | goal |\n|---|---|---:|---|---:|---:|---:|---:|\n")
		}
		t, _ := s.median(r.bench, r.typed, "ns/op")
		o, _ := s.median(r.bench, r.other, "ns/op")
		cpu := "—"
		typedCPU, otherCPU := s[key(r.bench, r.typed, "cpu-ns/op")], s[key(r.bench, r.other, "cpu-ns/op")]
		if len(typedCPU) > 0 && len(otherCPU) > 0 {
			cpu = number(pairedRatio(typedCPU, otherCPU)) + "×"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s× | %s | ≤ %s× |\n", r.workload, r.typed, number(t/1e3), r.other, number(o/1e3),
			number(pairedRatio(typed, other)), cpu, number(r.goal))
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
