// Command benchtable turns the output of the comparison benchmarks (any number of rounds) and the
// footprint sizes into one markdown table: each contender's figure, the median over the rounds,
// and infergate's figure divided by each other contender's.
//
//	benchtable -bench bench.txt -sizes sizes.txt [-svg chart.svg -title "go1.26.8 linux/amd64"]
//
// sizes.txt holds one "name bytes" line per footprint program. With -svg it also draws the time
// figures as bars, one group per workload, where the ratios read faster than in the table.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// contenders in the table's column order; the first is the one the ratios are about.
var contenders = []string{"infergate", "openai-go", "go-openai", "floor"}

// row is one line of the table: a figure of one benchmark.
type row struct {
	workload, figure string
	bench, unit      string  // where the figure is read from
	scale            float64 // the figure is the metric divided by scale
	yesNo            bool    // a 1/0 metric shown as yes/no, with no ratio
}

var rows = []row{
	{"Text stream, 10,000 chunks", "ns/chunk", "TextStream", "ns/chunk", 1, false},
	{"", "CPU ns/chunk", "TextStream", "cpu-ns/chunk", 1, false},
	{"", "B/chunk", "TextStream", "B/chunk", 1, false},
	{"", "allocs/chunk", "TextStream", "allocs/chunk", 1, false},
	{"Tool-call stream, 1,000 fragments", "ns/chunk", "ToolStream", "ns/chunk", 1, false},
	{"", "CPU ns/chunk", "ToolStream", "cpu-ns/chunk", 1, false},
	{"", "B/chunk", "ToolStream", "B/chunk", 1, false},
	{"", "allocs/chunk", "ToolStream", "allocs/chunk", 1, false},
	{"", "arguments valid JSON", "ToolStream", "valid-json", 1, true},
	{`Tool-call stream with a "{}" placeholder first`, "ns/chunk", "ToolStreamPlaceholder", "ns/chunk", 1, false},
	{"", "allocs/chunk", "ToolStreamPlaceholder", "allocs/chunk", 1, false},
	{"", "arguments valid JSON", "ToolStreamPlaceholder", "valid-json", 1, true},
	{"Completion, 50 KB response", "µs/op", "Completion", "ns/op", 1e3, false},
	{"", "KiB/op", "Completion", "B/op", 1 << 10, false},
	{"", "allocs/op", "Completion", "allocs/op", 1, false},
	{"Completion, 50 KB tool call", "µs/op", "ToolCompletion", "ns/op", 1e3, false},
	{"", "KiB/op", "ToolCompletion", "B/op", 1 << 10, false},
	{"", "allocs/op", "ToolCompletion", "allocs/op", 1, false},
	{"Model catalogue, 1,000 models", "µs/op", "Models", "ns/op", 1e3, false},
	{"", "KiB/op", "Models", "B/op", 1 << 10, false},
	{"", "allocs/op", "Models", "allocs/op", 1, false},
	{"Encode, 20 turns / 50 KB history (Create call)", "µs/op", "Encode", "ns/op", 1e3, false},
	{"", "KiB/op", "Encode", "B/op", 1 << 10, false},
	{"", "allocs/op", "Encode", "allocs/op", 1, false},
	{"Transcription upload, 200 MiB file", "peak heap above baseline, MiB", "Upload", "peak-heap-MiB", 1, false},
	{"", "ms/upload (in memory)", "Upload", "ns/op", 1e6, false},
	{"Time to first delta (loopback)", "median, µs", "FirstDelta", "p50-us", 1, false},
	{"", "p99, µs", "FirstDelta", "p99-us", 1, false},
	{"", "wake-up (median, µs)", "FirstDelta", "wake-p50-us", 1, false},
	{"", "client's own work (median, µs)", "FirstDelta", "own-p50-us", 1, false},
	{"Minimal streaming program", "binary size, MiB", "Footprint", "bytes", 1 << 20, false},
}

func main() {
	benchPath := flag.String("bench", "", "output of go test -bench, any number of rounds")
	sizesPath := flag.String("sizes", "", `footprint sizes, one "name bytes" line each`)
	svgPath := flag.String("svg", "", "also write the time figures as an SVG bar chart to this file")
	title := flag.String("title", "Time per operation (shorter is better)", "the chart's title")
	flag.Parse()
	samples := samples{}
	if err := readFile(*benchPath, samples.addBench); err != nil {
		log.Fatal(err)
	}
	if *sizesPath != "" {
		if err := readFile(*sizesPath, samples.addSize); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Print(render(samples))
	if typed := renderTyped(samples); typed != "" {
		fmt.Print("\n" + typed)
	}
	if *svgPath != "" {
		if err := os.WriteFile(*svgPath, []byte(renderSVG(samples, *title)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

func readFile(path string, add func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return add(f)
}

// samples holds every value read, by benchmark, contender and unit.
type samples map[string][]float64

func key(bench, contender, unit string) string { return bench + "/" + contender + " " + unit }

// benchLine matches "BenchmarkX/contender-2   N   value unit   value unit ..." and, for a benchmark
// that runs every contender in each sample, "BenchmarkX-2   N   value unit:contender ...".
var benchLine = regexp.MustCompile(`^Benchmark([^/\s-]+)(?:/(\S+?))?(?:-\d+)?\s+\d+\s+(.*)$`)

func (s samples) addBench(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[3])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return fmt.Errorf("%q: %w", sc.Text(), err)
			}
			contender, unit := m[2], fields[i+1]
			if contender == "" {
				var ok bool
				if unit, contender, ok = strings.Cut(unit, ":"); !ok {
					continue // a figure of the whole benchmark, of no contender
				}
			}
			k := key(m[1], contender, unit)
			s[k] = append(s[k], v)
		}
	}
	return sc.Err()
}

// footprintNames maps the footprint programs to the table's columns.
var footprintNames = map[string]string{"infergate": "infergate", "openai-go": "openai-go", "go-openai": "go-openai", "nethttp": "floor"}

func (s samples) addSize(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			return fmt.Errorf("%q: %w", sc.Text(), err)
		}
		if name, ok := footprintNames[fields[0]]; ok {
			k := key("Footprint", name, "bytes")
			s[k] = append(s[k], v)
		}
	}
	return sc.Err()
}

// median returns the median of the figure and whether there was any sample.
func (s samples) median(bench, contender, unit string) (float64, bool) {
	v := slices.Clone(s[key(bench, contender, unit)])
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

func render(s samples) string {
	var b strings.Builder
	b.WriteString("| Workload | Figure |")
	for _, c := range contenders {
		fmt.Fprintf(&b, " %s |", c)
	}
	for _, c := range contenders[1:] {
		fmt.Fprintf(&b, " infergate ÷ %s |", c)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---:|", 2*len(contenders)-1) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |", r.workload, r.figure)
		values := make([]float64, len(contenders))
		present := make([]bool, len(contenders))
		for i, c := range contenders {
			values[i], present[i] = s.median(r.bench, c, r.unit)
			fmt.Fprintf(&b, " %s |", cell(values[i]/r.scale, present[i], r.yesNo))
		}
		for i := 1; i < len(contenders); i++ {
			fmt.Fprintf(&b, " %s |", ratio(values[0], values[i], present[0] && present[i] && !r.yesNo))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func cell(v float64, present, yesNo bool) string {
	switch {
	case !present:
		return "n/a"
	case yesNo && v >= 0.5:
		return "yes"
	case yesNo:
		return "**no**"
	}
	return number(v)
}

// number shows three significant digits, or the whole integer part when it is longer.
func number(v float64) string {
	switch {
	case v >= 1000:
		return thousands(strconv.FormatFloat(v, 'f', 0, 64))
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func thousands(digits string) string {
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

func ratio(ours, theirs float64, ok bool) string {
	if !ok || theirs == 0 {
		return "—"
	}
	return number(ours/theirs) + "×"
}
