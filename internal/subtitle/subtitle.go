package subtitle

import (
	"strings"
	"time"
)

// Cue is one timed piece of text.
type Cue struct {
	ID    string // the identifier line above the timing, if any (the index in SRT)
	Start time.Duration
	End   time.Duration
	Text  string // the cue's lines joined with "\n", markup kept as sent
}

// ParseSRT returns the cues of a SubRip document. Blocks without a readable timing line are skipped.
func ParseSRT(doc string) []Cue { return parse(doc) }

// ParseVTT returns the cues of a WebVTT document. The WEBVTT header and NOTE, STYLE and REGION
// blocks carry no timing line, so they are skipped like any other block without one.
func ParseVTT(doc string) []Cue { return parse(doc) }

// parse serves both formats: they differ only in what the lenient reading tolerates anyway (the
// decimal separator, optional hours, optional identifier lines, cue settings, header blocks).
//
// Blocks are runs of non-blank lines. A block is a cue when its first or second line is a timing
// line; the lines after the timing are the cue's text. Memory stays proportional to the input: the
// document is walked line by line and every cue's text is a substring of it.
func parse(doc string) []Cue {
	doc = strings.TrimPrefix(doc, "\uFEFF")
	if strings.ContainsRune(doc, '\r') {
		doc = strings.ReplaceAll(doc, "\r\n", "\n")
		doc = strings.ReplaceAll(doc, "\r", "\n")
	}
	// Sizing the result once avoids the garbage of growing it: no cue is shorter than its timing
	// line, and the shortest timing line ("0:0-->0:0") and its line break take 10 bytes.
	cues := make([]Cue, 0, min(strings.Count(doc, "-->"), len(doc)/10+1))
	var (
		b     block
		start int // offset of the current line in doc
	)
	for start <= len(doc) {
		end := strings.IndexByte(doc[start:], '\n')
		if end < 0 {
			end = len(doc)
		} else {
			end += start
		}
		line := doc[start:end]
		if strings.TrimSpace(line) == "" {
			cues = b.flush(doc, cues)
		} else {
			b.add(line, start, end)
		}
		start = end + 1
	}
	if cues = b.flush(doc, cues); len(cues) == 0 {
		return nil
	}
	return cues
}

// block tracks the run of non-blank lines being read.
type block struct {
	lines     int    // lines seen so far in the block
	firstLine string // kept as the cue's ID should the second line be the timing
	timed     bool
	cue       Cue
	textStart int // offsets of the cue's text in the document; textEnd < 0 while there is none
	textEnd   int
}

func (b *block) add(line string, start, end int) {
	b.lines++
	switch {
	case b.timed:
		if b.textEnd < 0 {
			b.textStart = start
		}
		b.textEnd = end
	case b.lines <= 2:
		if cue, ok := parseTiming(line); ok {
			b.timed, b.cue, b.textEnd = true, cue, -1
			if b.lines == 2 {
				b.cue.ID = strings.TrimSpace(b.firstLine)
			}
			return
		}
		if b.lines == 1 {
			b.firstLine = line
		}
	}
}

// flush ends the block, appending its cue if it had one.
func (b *block) flush(doc string, cues []Cue) []Cue {
	if b.timed {
		if b.textEnd >= 0 {
			b.cue.Text = doc[b.textStart:b.textEnd]
		}
		cues = append(cues, b.cue)
	}
	*b = block{}
	return cues
}

// parseTiming reads "start --> end [settings]".
func parseTiming(line string) (Cue, bool) {
	left, right, ok := strings.Cut(line, "-->")
	if !ok {
		return Cue{}, false
	}
	right = strings.TrimLeft(right, " \t")
	if i := strings.IndexAny(right, " \t"); i >= 0 {
		right = right[:i] // cue settings or SRT coordinates follow
	}
	start, ok1 := parseTimestamp(strings.TrimSpace(left))
	end, ok2 := parseTimestamp(right)
	return Cue{Start: start, End: end}, ok1 && ok2
}

// parseTimestamp reads [hours:]minutes:seconds[(.|,)fraction]. Hours may have up to six digits,
// which keeps the result far from overflowing.
func parseTimestamp(s string) (time.Duration, bool) {
	first, rest, ok := strings.Cut(s, ":")
	if !ok {
		return 0, false
	}
	var hours int64
	if second, last, ok := strings.Cut(rest, ":"); ok {
		if hours, ok = number(first, 6); !ok {
			return 0, false
		}
		first, rest = second, last
	}
	minutes, ok := number(first, 2)
	if !ok {
		return 0, false
	}
	secText, fracText, hasFrac := strings.Cut(rest, ".")
	if !hasFrac {
		secText, fracText, _ = strings.Cut(rest, ",")
	}
	seconds, ok := number(secText, 2)
	if !ok {
		return 0, false
	}
	frac, ok := fraction(fracText)
	if !ok {
		return 0, false
	}
	return time.Duration(hours)*time.Hour + time.Duration(minutes)*time.Minute +
		time.Duration(seconds)*time.Second + frac, true
}

// number reads 1 to maxDigits decimal digits.
func number(s string, maxDigits int) (int64, bool) {
	if s == "" || len(s) > maxDigits {
		return 0, false
	}
	var n int64
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int64(r-'0')
	}
	return n, true
}

// fraction reads the digits after the decimal separator as a part of a second; digits beyond
// nanoseconds are ignored.
func fraction(s string) (time.Duration, bool) {
	if s == "" {
		return 0, true
	}
	if strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	s = s[:min(len(s), 9)]
	n, _ := number(s, 9)
	for i := len(s); i < 9; i++ {
		n *= 10
	}
	return time.Duration(n), true
}
