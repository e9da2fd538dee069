package infergate

import "strings"

// thinkState is where the text read so far stands.
type thinkState uint8

const (
	thinkStart    thinkState = iota // white space and the start of "<think>" at most: an opening may follow
	thinkUnopened                   // no opening tag: reasoning if "</think>" follows, else content
	thinkInside                     // after "<think>": reasoning, up to "</think>"
	thinkClosed                     // after "</think>": the white space that follows is dropped
	thinkContent                    // content, to the end
)

// thinkSplit takes reasoning written inline out of an answer's text, which it reads in pieces cut
// at any byte: the text between "<think>" at the start (past white space) and the first "</think>"
// is reasoning, or, when the text does not open with the tag (chat templates that open it in the
// prompt), all the text before the first "</think>"; white space right after "</think>" is
// dropped, the rest is content. Every other byte is kept, a tag never closed keeping what follows
// it as reasoning. A whole answer and a stream go through it alike, the answer as one piece.
//
// Text whose place is not known yet is held: the start of a tag cut between pieces, and, before a
// "</think>" that makes it reasoning or the end that makes it content, all text that did not open
// with "<think>".
type thinkSplit struct {
	state thinkState
	held  strings.Builder
}

// thinkSpace is the white space dropped after the closing tag, and skipped before the opening one.
const thinkSpace = " \t\r\n"

// write reads the next piece of text and returns the reasoning and content it makes known, in
// that order: pieces of the text, without copies, except where held text is given back.
func (t *thinkSplit) write(s string) (reasoning, content string) {
	for s != "" {
		switch t.state {
		case thinkContent:
			return reasoning, s
		case thinkClosed:
			if s = strings.TrimLeft(s, thinkSpace); s != "" {
				t.state = thinkContent
			}
		case thinkInside:
			text := s
			if t.held.Len() > 0 {
				text = t.take() + s
			}
			i := strings.Index(text, thinkClose)
			if i < 0 {
				cut := len(text) - tagStart(text, thinkClose)
				t.held.WriteString(text[cut:])
				return text[:cut], ""
			}
			reasoning, s, t.state = text[:i], text[i+len(thinkClose):], thinkClosed
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
func (t *thinkSplit) hold(s string) (reasoning, rest string, ok bool) {
	start := t.held.Len()
	t.held.WriteString(s)
	text := t.held.String()
	if t.state == thinkStart {
		opening := strings.TrimLeft(text, thinkSpace)
		switch {
		case strings.HasPrefix(opening, thinkOpen):
			t.held = strings.Builder{}
			t.state = thinkInside
			return "", opening[len(thinkOpen):], true
		case strings.HasPrefix(thinkOpen, opening):
			return "", "", false
		}
		t.state = thinkUnopened
	}
	// The text held before s holds no closing tag: one ends in s.
	from := max(0, start-len(thinkClose)+1)
	i := strings.Index(text[from:], thinkClose)
	if i < 0 {
		return "", "", false
	}
	i += from
	t.held = strings.Builder{}
	t.state = thinkClosed
	return text[:i], text[i+len(thinkClose):], true
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
func (t *thinkSplit) take() string {
	s := t.held.String()
	t.held = strings.Builder{}
	return s
}

// pending returns what the held text would be if the answer ended now: content when no tag was
// found (no closing tag came, so it was not reasoning), reasoning inside an unclosed tag.
func (t *thinkSplit) pending() (reasoning, content string) {
	if t.state == thinkInside {
		return t.held.String(), ""
	}
	return "", t.held.String()
}

// flush ends the answer: it gives back what pending returns, and holds nothing more.
func (t *thinkSplit) flush() (reasoning, content string) {
	reasoning, content = t.pending()
	t.held = strings.Builder{}
	if t.state == thinkStart || t.state == thinkUnopened {
		t.state = thinkContent
	}
	return reasoning, content
}

// holding reports whether text is held.
func (t *thinkSplit) holding() bool { return t.held.Len() > 0 }

// splitThink moves the reasoning of a whole answer's message out of its content. A message with
// Parts is left as it is: its content must stay their text.
func splitThink(m *Message) {
	if m.Parts != nil || m.Content == "" {
		return
	}
	var t thinkSplit
	reasoning, content := t.write(m.Content)
	r, c := t.flush()
	// Go concatenates with an empty string without a copy.
	m.Content = content + c
	m.Reasoning += reasoning + r
}
