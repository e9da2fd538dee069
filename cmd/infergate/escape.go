package main

import (
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// A terminal obeys the control characters in what it is shown: an escape sequence in a model's
// name, a tag or an error message can set the window's title, clear the screen or move the cursor
// back over lines already written, and a bidi override reverses the text after it. The command
// shows what servers send, so every byte of its human output goes through an escapingWriter, which
// writes those characters as Go escapes (\x1b, \u202e) and leaves every other character as it is.
// What is for programs (--json, audio, a file named by -o) is written exactly, through exact.

// escapingWriter writes what it is given with the characters that could drive a terminal escaped.
// Each Write stands alone: a character cut between two writes is escaped byte by byte (the
// command writes whole strings, which a server's JSON gives whole).
type escapingWriter struct{ w io.Writer }

// escaping returns w behind an escapingWriter, or w when it already is one.
func escaping(w io.Writer) io.Writer {
	if _, ok := w.(*escapingWriter); ok {
		return w
	}
	return &escapingWriter{w: w}
}

// exact returns the writer beneath w's escaping, for output that must reach its reader byte for
// byte, and for the command's own terminal sequences (the dimmed reasoning, the progress bar).
func exact(w io.Writer) io.Writer {
	if e, ok := w.(*escapingWriter); ok {
		return e.w
	}
	return w
}

func (e *escapingWriter) Write(p []byte) (int, error) {
	if firstEscaped(p) == len(p) {
		return e.w.Write(p)
	}
	if _, err := e.w.Write(appendEscaped(nil, p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// printable is s as an escapingWriter writes it, for text measured before it is written (a table
// aligns its cells by their width as shown).
func printable(s string) string {
	if firstEscaped([]byte(s)) == len(s) {
		return s
	}
	return string(appendEscaped(nil, []byte(s)))
}

// firstEscaped returns the index of the first byte of p that is shown escaped, len(p) if none is.
func firstEscaped(p []byte) int {
	for i := 0; i < len(p); {
		if c := p[i]; c < utf8.RuneSelf {
			if controlByte(p, i) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if (r == utf8.RuneError && size == 1) || controlRune(r) {
			return i
		}
		i += size
	}
	return len(p)
}

// appendEscaped appends p to dst with each control character, and each byte that is not UTF-8,
// written as an escape.
func appendEscaped(dst, p []byte) []byte {
	for len(p) > 0 {
		i := firstEscaped(p)
		dst = append(dst, p[:i]...)
		if i == len(p) {
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r < utf8.RuneSelf || (r == utf8.RuneError && size == 1):
			dst = fmt.Appendf(dst, `\x%02x`, p[i])
		case r <= 0xffff:
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = fmt.Appendf(dst, `\U%08x`, r)
		}
		p = p[i+size:]
	}
	return dst
}

// controlByte reports whether the ASCII byte p[i] is a control character to escape: all of C0 and
// DEL but the tab and the line feed, which text is made of, and the carriage return of a CRLF line
// end (a carriage return alone takes the cursor back over the line, to write over it).
func controlByte(p []byte, i int) bool {
	switch c := p[i]; {
	case c == '\t' || c == '\n':
		return false
	case c == '\r':
		return i+1 >= len(p) || p[i+1] != '\n'
	default:
		return c < 0x20 || c == 0x7f
	}
}

// controlRune reports whether r, past ASCII, is escaped: the C1 controls (U+0080–U+009F; U+009B is
// the one-character CSI), the bidi controls that reorder what follows them, and the line and
// paragraph separators.
func controlRune(r rune) bool {
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}
