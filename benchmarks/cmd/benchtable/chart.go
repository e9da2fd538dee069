package main

import (
	"fmt"
	"html"
	"strings"
)

// chartRow is one group of bars in the chart: a time figure of one workload.
type chartRow struct {
	label       string
	bench, unit string
	scale       float64 // the shown value is the metric divided by scale
	shown       string  // the unit the bars are labelled in
}

// chartRows are the time figures, the ones whose ratios read faster as bars than as a table.
var chartRows = []chartRow{
	{"Text stream, 10,000 chunks", "TextStream", "ns/chunk", 1, "ns/chunk"},
	{"Tool-call stream, 1,000 fragments", "ToolStream", "ns/chunk", 1, "ns/chunk"},
	{"Completion, 50 KB response", "Completion", "ns/op", 1e3, "µs"},
	{"Completion, 50 KB tool call", "ToolCompletion", "ns/op", 1e3, "µs"},
	{"Model catalogue, 1,000 models", "Models", "ns/op", 1e3, "µs"},
	{"Encode, 20 turns / 50 KB history", "Encode", "ns/op", 1e3, "µs"},
	{"Transcription upload, 200 MiB", "Upload", "ns/op", 1e6, "ms"},
	{"First delta, the client's own work", "FirstDelta", "own-p50-us", 1, "µs"},
}

// colors of the contenders' bars, in the order of contenders.
var colors = []string{"#2b7bb9", "#9b9b9b", "#c8a03c", "#6a9f58"}

const (
	chartWidth = 760
	labelX     = 10
	barX       = 110 // bars start here; the contender's name sits left of them
	barMax     = 520 // the longest bar of a group
	barHeight  = 14
	barGap     = 3
	groupGap   = 16
	lineHeight = 18
)

// renderSVG draws one horizontal bar group per time figure, each bar as long as the contender's
// median relative to the slowest contender of the group, so shorter is better throughout.
func renderSVG(s samples, title string) string {
	var body strings.Builder
	y := 40
	for _, r := range chartRows {
		values := make([]float64, len(contenders))
		present := make([]bool, len(contenders))
		longest := 0.0
		for i, c := range contenders {
			values[i], present[i] = s.median(r.bench, c, r.unit)
			if present[i] {
				longest = max(longest, values[i])
			}
		}
		if longest == 0 {
			continue
		}
		y += lineHeight
		fmt.Fprintf(&body, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", labelX, y, html.EscapeString(r.label))
		y += barGap + 2
		for i, c := range contenders {
			if !present[i] {
				continue
			}
			width := max(1, int(values[i]/longest*barMax+0.5))
			fmt.Fprintf(&body, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", barX-6, y+barHeight-3, c)
			fmt.Fprintf(&body, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", barX, y, width, barHeight, colors[i])
			fmt.Fprintf(&body, "<text x=\"%d\" y=\"%d\">%s %s</text>\n", barX+width+6, y+barHeight-3, number(values[i]/r.scale), html.EscapeString(r.shown))
			y += barHeight + barGap
		}
		y += groupGap
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", chartWidth, y)
	fmt.Fprintf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", chartWidth, y)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"24\" font-size=\"14\" font-weight=\"bold\">%s</text>\n", labelX, html.EscapeString(title))
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
	return b.String()
}
