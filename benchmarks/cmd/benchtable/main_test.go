package main

import (
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	bench := `goos: linux
BenchmarkTextStream/infergate-2   24   48167246 ns/op   50.00 MB/s   182.4 B/chunk   2.034 allocs/chunk   2000 ns/chunk   1823774 B/op   20340 allocs/op
BenchmarkTextStream/infergate-2   24   48167246 ns/op   50.00 MB/s   182.4 B/chunk   2.034 allocs/chunk   4000 ns/chunk   1823774 B/op   20340 allocs/op
BenchmarkTextStream/infergate-2   24   48167246 ns/op   50.00 MB/s   182.4 B/chunk   2.034 allocs/chunk   3000 ns/chunk   1823774 B/op   20340 allocs/op
BenchmarkTextStream/openai-go-2   7   146038776 ns/op   16.49 MB/s   7019 B/chunk   54.05 allocs/chunk   12000 ns/chunk   70190699 B/op   540508 allocs/op
BenchmarkToolStreamPlaceholder/infergate-2   331   3914679 ns/op   1.000 valid-json
BenchmarkToolStreamPlaceholder/go-openai-2   186   6767300 ns/op   0 valid-json
BenchmarkEncode/infergate-2   13000   92000 ns/op   560.0 MB/s   63206 B/op   68 allocs/op
BenchmarkEncode/go-openai-2   2000   460000 ns/op   110.0 MB/s   182309 B/op   98 allocs/op
BenchmarkFirstDelta-2   100   200000 ns/op   30.00 p50-us:infergate   20.00 wake-p50-us:infergate   10.00 own-p50-us:infergate   40.00 p50-us:go-openai   20.00 wake-p50-us:go-openai   20.00 own-p50-us:go-openai
PASS
`
	sizes := "infergate 6750473\nnethttp 6185225\n"
	s := samples{}
	if err := s.addBench(strings.NewReader(bench)); err != nil {
		t.Fatal(err)
	}
	if err := s.addSize(strings.NewReader(sizes)); err != nil {
		t.Fatal(err)
	}
	table := render(s)
	tests := []struct{ name, line string }{
		{"median of three rounds, ratio to openai-go", "| Text stream, 10,000 chunks | ns/chunk | 3,000 | 12,000 | n/a | n/a | 0.25× | — | — |"},
		{"allocations", "|  | allocs/chunk | 2.03 | 54.0 | n/a | n/a | 0.04× | — | — |"},
		{"yes/no without ratios", "|  | arguments valid JSON | yes | n/a | **no** | n/a | — | — | — |"},
		{"encoding in µs", "| Encode, 20 turns / 50 KB history (Create call) | µs/op | 92.0 | n/a | 460 | n/a | — | 0.20× | — |"},
		{"first delta, every contender in one benchmark", "| Time to first delta (loopback) | median, µs | 30.0 | n/a | 40.0 | n/a | — | 0.75× | — |"},
		{"client's own work", "|  | client's own work (median, µs) | 10.0 | n/a | 20.0 | n/a | — | 0.50× | — |"},
		{"footprint against the net/http floor", "| Minimal streaming program | binary size, MiB | 6.44 | n/a | n/a | 5.90 | — | — | 1.09× |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(table, tt.line+"\n") {
				t.Errorf("table lacks\n%s\ngot:\n%s", tt.line, table)
			}
		})
	}
}

func TestRenderSVG(t *testing.T) {
	bench := `BenchmarkTextStream/infergate-2   24   1 ns/op   500 ns/chunk
BenchmarkTextStream/openai-go-2   7   1 ns/op   12000 ns/chunk
BenchmarkTextStream/go-openai-2   7   1 ns/op   6000 ns/chunk
BenchmarkEncode/infergate-2   13000   92000 ns/op
BenchmarkEncode/floor-2   13000   184000 ns/op
`
	s := samples{}
	if err := s.addBench(strings.NewReader(bench)); err != nil {
		t.Fatal(err)
	}
	svg := renderSVG(s, `go1.26 <amd64> & "2 cores"`)

	dec := xml.NewDecoder(strings.NewReader(svg))
	var widths []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "rect" {
			for _, a := range el.Attr {
				if a.Name.Local == "width" && a.Value != "760" {
					widths = append(widths, a.Value)
				}
			}
		}
	}
	// The slowest bar of a group is the longest (520); the others are in proportion to it.
	want := []string{"22", "520", "260", "260", "520"}
	if !slices.Equal(widths, want) {
		t.Errorf("bar widths %v, want %v", widths, want)
	}
	for _, label := range []string{"500 ns/chunk", "12,000 ns/chunk", "92.0 µs", "184 µs"} {
		if !strings.Contains(svg, ">"+label+"<") {
			t.Errorf("chart lacks the label %q", label)
		}
	}
	if strings.Contains(svg, "Completion") {
		t.Error("a workload without samples has a group")
	}
}

func TestRenderTyped(t *testing.T) {
	bench := `BenchmarkObject/Stream-2   20   3000000 ns/op
BenchmarkObject/StreamObject-2   20   4500000 ns/op
BenchmarkObject/GenerateObject-2   20   2000000 ns/op   1000000 cpu-ns/op
BenchmarkObject/GoOpenAIUnmarshal-2   20   8000000 ns/op   2000000 cpu-ns/op
BenchmarkObject/Stream-2   20   4000000 ns/op
BenchmarkObject/StreamObject-2   20   4000000 ns/op
BenchmarkObject/GenerateObject-2   20   1400000 ns/op   700000 cpu-ns/op
BenchmarkObject/GoOpenAIUnmarshal-2   20   7000000 ns/op   3500000 cpu-ns/op
BenchmarkObject/Stream-2   20   2000000 ns/op
BenchmarkObject/StreamObject-2   20   2600000 ns/op
BenchmarkObject/GenerateObject-2   20   2200000 ns/op   1100000 cpu-ns/op
BenchmarkObject/GoOpenAIUnmarshal-2   20   10000000 ns/op   2000000 cpu-ns/op
`
	s := samples{}
	if err := s.addBench(strings.NewReader(bench)); err != nil {
		t.Fatal(err)
	}
	table := renderTyped(s)
	for _, line := range []string{
		"| Typed answer, 50 KB object streamed in 4,000 fragments, with partials | StreamObject | 4,000 | Stream | 3,000 | 1.30× | — | ≤ 1.50× |",
		"| Typed answer, 50 KB object whole, against go-openai + `json.Unmarshal` (no check) | GenerateObject | 2,000 | GoOpenAIUnmarshal | 8,000 | 0.22× | 0.50× | ≤ 0.25× |",
	} {
		if !strings.Contains(table, line+"\n") {
			t.Errorf("table lacks\n%s\ngot:\n%s", line, table)
		}
	}
	if strings.Contains(table, "GoOpenAIValidate") || strings.Contains(table, "waited for") {
		t.Errorf("a row without samples is shown:\n%s", table)
	}
	if got := renderTyped(samples{}); got != "" {
		t.Errorf("a run without typed answers gives %q", got)
	}
}
