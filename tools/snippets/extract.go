package main

import (
	"fmt"
	"strings"
)

// snippet is one fenced Go block of a Markdown file.
type snippet struct {
	file string // slash-separated, relative to the root
	line int    // the line of the block's first code line, from 1
	code string // the lines between the fences, as written

	// The Go declarations of the <!-- snippet ... --> comment right before the fence, and the line
	// they start on; empty when there is none.
	prelude     string
	preludeLine int
}

func (s snippet) String() string { return fmt.Sprintf("%s:%d", s.file, s.line) }

// preludeMarker opens the comment that declares what a snippet assumes.
const preludeMarker = "<!-- snippet"

// extract returns the Go blocks of a Markdown file: fences of three or more backticks or tildes,
// indented or not (a block inside a list item), whose info string is "go". A fence left open is an
// error.
func extract(file, text string) ([]snippet, error) {
	lines := strings.Split(text, "\n")
	var found []snippet
	for i := 0; i < len(lines); i++ {
		fence, info, ok := openingFence(lines[i])
		if !ok {
			continue
		}
		end := i + 1
		for end < len(lines) && !closesFence(lines[end], fence) {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: the fence %s is never closed", file, i+1, fence)
		}
		if info == "go" {
			s := snippet{file: file, line: i + 2, code: strings.Join(lines[i+1:end], "\n")}
			s.prelude, s.preludeLine = preludeBefore(lines, i)
			found = append(found, s)
		}
		i = end
	}
	return found, nil
}

// openingFence reports whether line opens a fenced block, with its fence and the first word of its
// info string.
func openingFence(line string) (fence, info string, ok bool) {
	trimmed := strings.TrimLeft(line, " \t")
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(trimmed) && trimmed[n] == c {
			n++
		}
		if n >= 3 {
			if fields := strings.Fields(trimmed[n:]); len(fields) > 0 {
				info = fields[0]
			}
			return trimmed[:n], info, true
		}
	}
	return "", "", false
}

// closesFence reports whether line closes a block opened by fence: the same character, at least as
// many, and nothing else on the line.
func closesFence(line, fence string) bool {
	trimmed := strings.TrimSpace(line)
	return len(trimmed) >= len(fence) && trimmed[0] == fence[0] && strings.Trim(trimmed, fence[:1]) == ""
}

// preludeBefore returns the text of a <!-- snippet ... --> comment that ends on the line right
// before the fence at line fence, from just after its marker to just before its "-->", and the
// line (from 1) that text starts on.
func preludeBefore(lines []string, fence int) (string, int) {
	last := fence - 1
	if last < 0 || !strings.HasSuffix(strings.TrimSpace(lines[last]), "-->") {
		return "", 0
	}
	for first := last; first >= 0; first-- {
		trimmed := strings.TrimLeft(lines[first], " \t")
		if rest, ok := strings.CutPrefix(trimmed, preludeMarker); ok {
			body := strings.Join(append([]string{rest}, lines[first+1:last+1]...), "\n")
			body = body[:strings.LastIndex(body, "-->")]
			return body, first + 1
		}
		if strings.Contains(lines[first], "<!--") || first < last && strings.Contains(lines[first], "-->") {
			return "", 0 // another comment, or the end of an earlier one
		}
	}
	return "", 0
}
