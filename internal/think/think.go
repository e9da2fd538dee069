package think

import "strings"

// Open and Close are the tags around reasoning written inline.
const (
	Open  = "<think>"
	Close = "</think>"
)

// thinkState is where the text read so far stands.
type thinkState uint8

const (
	thinkStart    thinkState = iota // white space and the start of "<think>" at most: an opening may follow
	thinkUnopened                   // no opening tag: reasoning if "</think>" follows, else content
	thinkInside                     // after "<think>": reasoning, up to "</think>"
	Closed                          // after "</think>": the white space that follows is dropped
	thinkContent                    // content, to the end
)

// Splitter takes reasoning written inline out of an answer's text, which it reads in pieces cut
// at any byte: the text between "<think>" at the start (past white space) and the first "</think>"
// is reasoning, or, when the text does not open with the tag (chat templates that open it in the
// prompt), all the text before the first "</think>"; white space right after "</think>" is
// dropped, the rest is content. Every other byte is kept, a tag never closed keeping what follows
// it as reasoning. A whole answer and a stream go through it alike, the answer as one piece.
//
// Text whose place is not known yet is held: the start of a tag cut between pieces, and, before a
// "</think>" that makes it reasoning or the end that makes it content, all text that did not open
// with "<think>".
type Splitter struct {
	state thinkState
	held  strings.Builder
}

// thinkSpace is the white space dropped after the closing tag, and skipped before the opening one.
const thinkSpace = " \t\r\n"

// Write reads the next piece of text and returns the reasoning and content it makes known, in
// that order: pieces of the text, without copies, except where held text is given back.
func (t *Splitter) Write(s string) (reasoning, content string) {
	for s != "" {
		switch t.state {
		case thinkContent:
			return reasoning, s
		case Closed:
			if s = strings.TrimLeft(s, thinkSpace); s != "" {
				t.state = thinkContent
			}
		case thinkInside:
			text := s
			if t.held.Len() > 0 {
				text = t.take() + s
			}
			i := strings.Index(text, Close)
			if i < 0 {
				cut := len(text) - tagStart(text, Close)
				t.held.WriteString(text[cut:])
				return text[:cut], ""
			}
			reasoning, s, t.state = text[:i], text[i+len(Close):], Closed
		default:
			var ok bool
			if reasoning, s, ok = t.hold(s); !ok {
				return "", ""
			}
		}
	}
	return reasoning, content
}

// hold adds s to the held text, in the states before a tag is found. Once one is, it returns the
// reasoning before it and the text after it, and ok.
func (t *Splitter) hold(s string) (reasoning, rest string, ok bool) {
	start := t.held.Len()
	t.held.WriteString(s)
	text := t.held.String()
	if t.state == thinkStart {
		opening := strings.TrimLeft(text, thinkSpace)
		switch {
		case strings.HasPrefix(opening, Open):
			t.held = strings.Builder{}
			t.state = thinkInside
			return "", opening[len(Open):], true
		case strings.HasPrefix(Open, opening):
			return "", "", false
		}
		t.state = thinkUnopened
	}
	// The text held before s holds no closing tag: one ends in s.
	from := max(0, start-len(Close)+1)
	i := strings.Index(text[from:], Close)
	if i < 0 {
		return "", "", false
	}
	i += from
	t.held = strings.Builder{}
	t.state = Closed
	return text[:i], text[i+len(Close):], true
}

// tagStart returns the length of the longest end of text that begins tag without being all of it.
func tagStart(text, tag string) int {
	for n := min(len(tag)-1, len(text)); n > 0; n-- {
		if strings.HasSuffix(text, tag[:n]) {
			return n
		}
	}
	return 0
}

// take returns the held text and holds nothing.
func (t *Splitter) take() string {
	s := t.held.String()
	t.held = strings.Builder{}
	return s
}

// Pending returns what the held text would be if the answer ended now: content when no tag was
// found (no closing tag came, so it was not reasoning), reasoning inside an unclosed tag.
func (t *Splitter) Pending() (reasoning, content string) {
	if t.state == thinkInside {
		return t.held.String(), ""
	}
	return "", t.held.String()
}

// Flush ends the answer: it gives back what Pending returns, and holds nothing more.
func (t *Splitter) Flush() (reasoning, content string) {
	reasoning, content = t.Pending()
	t.held = strings.Builder{}
	if t.state == thinkStart || t.state == thinkUnopened {
		t.state = thinkContent
	}
	return reasoning, content
}

// Holding reports whether text is held.
func (t *Splitter) Holding() bool { return t.held.Len() > 0 }

// Split reads a whole answer's text: what a stream of it in any pieces would read, with Flush.
func Split(text string) (reasoning, content string) {
	var t Splitter
	reasoning, content = t.Write(text)
	r, c := t.Flush()
	// Go concatenates with an empty string without a copy.
	return reasoning + r, content + c
}
