package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// table writes aligned columns. Cells must not hold tabs or newlines: cell cleans them, and
// escapes what the output's escapingWriter would, so that columns align on the text as shown.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// cell keeps a server's text to one table cell.
func cell(s string) string { return printable(strings.Join(strings.Fields(s), " ")) }

// orDash shows an unknown value as "-", so that columns stay aligned for the eye.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeJSON prints v as indented JSON, for scripts: exactly, whatever its strings hold.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(exact(w))
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// date shows a day; the zero time is "-".
func date(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.DateOnly)
}

// bytesText shows a size in bytes the way people read it: 1.5 MiB.
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
