// Package partialjson parses one JSON value as its text arrives in fragments. It reports what the
// text adds as events, so that a consumer can show a value before it is complete, and it never looks
// at a byte twice: feeding a value in any number of fragments costs what feeding it whole does.
package partialjson

import (
	"errors"
	"fmt"
	"io"
)

// Handler receives a Parser's events, in the order of the text. Offsets count bytes from the start
// of the text; byte slices are valid only during the call.
type Handler interface {
	BeginObject(at int)
	BeginArray(at int)
	Key(key []byte)              // an object's key, unescaped, once it is complete
	End(at int)                  // the innermost object or array closes at this offset
	BeginString(at int)          // a string value opens
	StringPart(part []byte)      // more of the open string, unescaped
	EndString(at int)            // the open string closes at this offset
	BeginLiteral(at int)         // a number, true, false or null opens
	Literal(text []byte, at int) // a complete number, true, false or null starting at at
}

// MaxDepth is the deepest nesting of objects and arrays accepted, as encoding/json's.
const MaxDepth = 10000

// Parser reads one JSON value. The zero value is not usable: call New.
type Parser struct {
	h Handler
	// buf holds the text from offset base on: what is not read yet, the open literal and what the
	// handler holds (hold). Text read and let go is dropped, so that buf stays about a fragment
	// long rather than growing to the whole text.
	buf     []byte
	base    int
	held    int    // the offset the handler holds the text from
	holding bool   // held is set
	pos     int    // the next byte to read, in buf
	stack   []byte // '{' or '[' per open container
	state   state
	start   int    // where the current literal began, in buf
	isKey   bool   // the open string is an object's key
	key     []byte // the open key, unescaped
	scratch []byte // unescaped text handed to StringPart
	err     error
	// trailing: text after the value is left unread, as when the value sits in prose.
	trailing bool
}

type state uint8

const (
	sValue       state = iota // a value must come
	sArrayFirst               // after '[': a value or ']'
	sObjectFirst              // after '{': a key or '}'
	sKey                      // after ',' in an object: a key
	sColon                    // after a key
	sAfter                    // after a value: ',' or a closing bracket, or the end
	sString
	sLiteral
	sDone // the value is complete; only whitespace may follow
)

// New returns a parser that reports to h. Text after the value is an error.
func New(h Handler) *Parser { return &Parser{h: h} }

// NewPrefix returns a parser that reports to h and stops reading at the end of the value: text
// after it (the rest of a sentence, a closing Markdown fence) is left unread, and Offset, once
// Done, is where the value ends.
func NewPrefix(h Handler) *Parser { return &Parser{h: h, trailing: true} }

// Write parses the next fragment. After an error the parser stays failed and Write returns that
// error again.
func (p *Parser) Write(fragment []byte) error {
	if p.err != nil {
		return p.err
	}
	p.buf = append(p.room(len(fragment)), fragment...) // buf is written once a fragment: a write costs a barrier while the GC runs
	return p.parse()
}

// WriteString is Write for a fragment held in a string, which it reads without a copy of its own.
func (p *Parser) WriteString(fragment string) error {
	if p.err != nil {
		return p.err
	}
	if buf := p.buf; p.pos == len(buf) && p.state != sLiteral && !p.holding && len(fragment)+8 <= cap(buf) {
		// The usual case, as in room, inline: all read, nothing kept, and room enough.
		p.base, p.pos = p.base+p.pos, 0
		p.buf = buf[:copy(buf[:len(fragment)], fragment)]
	} else {
		p.buf = append(p.room(len(fragment)), fragment...)
	}
	return p.parse()
}

// room returns buf holding what is kept of the text, with room for n more bytes.
func (p *Parser) room(n int) []byte {
	buf := p.buf[:0]
	if p.pos == len(p.buf) && p.state != sLiteral && !p.holding {
		p.base, p.pos = p.base+p.pos, 0 // the usual case: all read, nothing kept
	} else {
		buf = p.compact()
	}
	if n += len(buf); n+8 > cap(buf) {
		// Eight bytes to spare, so that stringRun reads whole words to the end of the text.
		grown := make([]byte, len(buf), 2*n+64)
		copy(grown, buf)
		buf = grown
	}
	return buf
}

// parse reads the text Write added; an error fails the parser.
func (p *Parser) parse() error {
	if err := p.run(); err != nil {
		p.err = err
		return err
	}
	return nil
}

// compact drops the text nothing needs any more when some is: read, not in the open literal, not
// held, and returns what is left, for Write to set as buf. It moves no more than it drops, so that
// a long value held costs no more than a copy of it.
func (p *Parser) compact() []byte {
	keep := p.pos
	if p.state == sLiteral {
		keep = min(keep, p.start)
	}
	if p.holding {
		keep = min(keep, p.held-p.base)
	}
	if keep == 0 || keep < len(p.buf)-keep {
		return p.buf
	}
	n := copy(p.buf, p.buf[keep:])
	p.base += keep
	p.pos -= keep
	p.start -= keep
	return p.buf[:n]
}

// hold keeps the text from offset at on until release, for span; it reports false, and does
// nothing, when text is held already (from an earlier offset: holds nest).
func (p *Parser) hold(at int) bool {
	if p.holding {
		return false
	}
	p.held, p.holding = at, true
	return true
}

// release lets the held text go, for compact to drop once read.
func (p *Parser) release() { p.holding = false }

// span returns the text between offsets from and to, which a hold keeps.
func (p *Parser) span(from, to int) []byte { return p.buf[from-p.base : to-p.base] }

// Close ends the text: it returns an error when the value is incomplete, and completes a top-level
// number, which only the end can complete.
func (p *Parser) Close() error {
	if p.err != nil {
		return p.err
	}
	if p.state == sLiteral && len(p.stack) == 0 {
		if p.err = p.literal(len(p.buf)); p.err != nil {
			return p.err
		}
	}
	if p.state != sDone {
		p.err = fmt.Errorf("partialjson: unexpected end of JSON input: %w", io.ErrUnexpectedEOF)
	}
	return p.err
}

// Done reports whether the value is complete (a top-level number only after Close).
func (p *Parser) Done() bool { return p.state == sDone }

// Offset returns the number of bytes read so far; text past it waits for more input.
func (p *Parser) Offset() int { return p.base + p.pos }

func (p *Parser) syntax(format string, args ...any) error {
	return &SyntaxError{Offset: p.base + p.pos, msg: fmt.Sprintf(format, args...)}
}

// SyntaxError is text that is not JSON.
type SyntaxError struct {
	Offset int // the byte at which the text stopped being JSON
	msg    string
}

// Error says where the text stopped being JSON and why.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("partialjson: invalid JSON at offset %d: %s", e.Offset, e.msg)
}

// ErrTooDeep is a value nested deeper than MaxDepth.
var ErrTooDeep = errors.New("partialjson: exceeded max depth")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// run reads as far as the text allows.
func (p *Parser) run() error {
	for p.pos < len(p.buf) {
		c := p.buf[p.pos]
		switch p.state {
		case sDone:
			if p.trailing {
				return nil
			}
		case sString:
			if !p.stringRun() {
				return p.err
			}
			continue
		case sLiteral:
			if err := p.literalRun(); err != nil {
				return err
			}
			continue
		}
		if isSpace(c) {
			p.pos++
			continue
		}
		if err := p.token(c); err != nil {
			return err
		}
	}
	return nil
}

// token reads the structural byte c at pos.
func (p *Parser) token(c byte) error {
	switch p.state {
	case sValue:
		return p.value(c)
	case sArrayFirst:
		if c == ']' {
			return p.close(c)
		}
		return p.value(c)
	case sObjectFirst, sKey:
		if c == '}' && p.state == sObjectFirst {
			return p.close(c)
		}
		if c != '"' {
			return p.syntax("looking for the beginning of an object key string, found %q", c)
		}
		return p.beginKey()
	case sColon:
		if c != ':' {
			return p.syntax("after an object key, found %q", c)
		}
		p.state = sValue
		p.pos++
		return nil
	case sAfter:
		switch {
		case c == ',':
			// What follows a comma is read here when it follows at once, as it mostly does: a key,
			// or an array's next value.
			p.pos++
			if p.stack[len(p.stack)-1] == '{' {
				p.state = sKey
				if p.pos < len(p.buf) && p.buf[p.pos] == '"' {
					return p.beginKey()
				}
				return nil
			}
			p.state = sValue
			if p.pos < len(p.buf) && !isSpace(p.buf[p.pos]) {
				return p.value(p.buf[p.pos])
			}
			return nil
		case c == '}' || c == ']':
			return p.close(c)
		}
		return p.syntax("after a value, found %q", c)
	}
	return p.syntax("after the top-level value, found %q", c)
}

// value opens the value that starts with c.
func (p *Parser) value(c byte) error {
	at := p.base + p.pos
	switch {
	case c == '{' || c == '[':
		if len(p.stack) >= MaxDepth {
			return ErrTooDeep
		}
		p.stack = append(p.stack, c)
		p.pos++
		if c == '{' {
			p.state = sObjectFirst
			p.h.BeginObject(at)
		} else {
			p.state = sArrayFirst
			p.h.BeginArray(at)
		}
	case c == '"':
		p.isKey, p.state = false, sString
		p.pos++
		p.h.BeginString(at)
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		p.start, p.state = p.pos, sLiteral
		p.pos++
		p.h.BeginLiteral(at)
		return p.literalRun()
	default:
		return p.syntax("looking for the beginning of a value, found %q", c)
	}
	return nil
}

// close ends the innermost container with c.
func (p *Parser) close(c byte) error {
	open := p.stack[len(p.stack)-1]
	if (open == '{') != (c == '}') {
		return p.syntax("%q closes %q", c, open)
	}
	p.stack = p.stack[:len(p.stack)-1]
	at := p.base + p.pos
	p.pos++
	p.afterValue()
	p.h.End(at)
	return nil
}

func (p *Parser) afterValue() {
	p.state = sAfter
	if len(p.stack) == 0 {
		p.state = sDone
	}
}

func isLiteralByte(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '.' || c == '+' || c == '-' || c == 'E'
}

// literalRun reads the open literal as far as the text allows, and ends it at the first byte that
// cannot be part of it.
func (p *Parser) literalRun() error {
	buf, pos := p.buf, p.pos
	for pos < len(buf) && isLiteralByte(buf[pos]) {
		pos++
	}
	p.pos = pos
	if pos == len(buf) {
		return nil
	}
	return p.literal(pos)
}

// literal ends the literal that runs up to end.
func (p *Parser) literal(end int) error {
	text := p.buf[p.start:end]
	if !validLiteral(text) {
		p.pos = p.start
		return p.syntax("invalid literal %q", text)
	}
	p.afterValue()
	p.h.Literal(text, p.base+p.start)
	return nil
}

// Discard is a Handler that ignores every event, for a parser that only checks or delimits a value.
var Discard Handler = discard{}

type discard struct{}

func (discard) BeginObject(int)     {}
func (discard) BeginArray(int)      {}
func (discard) Key([]byte)          {}
func (discard) End(int)             {}
func (discard) BeginString(int)     {}
func (discard) StringPart([]byte)   {}
func (discard) EndString(int)       {}
func (discard) BeginLiteral(int)    {}
func (discard) Literal([]byte, int) {}
