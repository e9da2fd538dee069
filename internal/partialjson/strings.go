package partialjson

// The parser's strings: their text read eight bytes at a time, and their escapes.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// plainByte marks the bytes a string holds as they are: printable ASCII but '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// stringRun reads the open string as far as the text allows; false means it must wait for more
// text or failed (p.err). Its unescaped text goes to the handler in one part per call: the plain
// runs between escapes are gathered in scratch once an escape has been met.
func (p *Parser) stringRun() bool {
	run := p.pos
	buf := p.buf
	pos := p.pos
	for pos < len(buf) {
		if pos+8 <= cap(buf) {
			// Most of a string: eight bytes at a time, up to the first that is not plain. Near the
			// end of the text the word reaches into buf's spare capacity, whose bytes are masked off.
			m := special8(binary.LittleEndian.Uint64(buf[pos : pos+8]))
			if rest := len(buf) - pos; rest < 8 {
				m &= 1<<(8*rest) - 1
				if m == 0 {
					pos = len(buf)
					break
				}
			}
			if m == 0 {
				pos += 8
				continue
			}
			pos += bits.TrailingZeros64(m) >> 3
		} else if plainByte[buf[pos]] {
			pos++
			continue
		}
		c := buf[pos]
		switch {
		case c == '"':
			p.pos = pos
			if len(p.scratch) == 0 {
				p.emit(buf[run:pos]) // flush's usual case, inlined
			} else {
				p.flush(buf[run:pos])
			}
			p.endString()
			return true
		case c == '\\':
			p.pos = pos
			p.scratch = append(p.scratch, buf[run:pos]...)
			ok, err := p.escape()
			if err != nil || !ok {
				p.flush(nil)
				p.err = err
				return false
			}
			pos = p.pos
			run = pos
		case c < 0x20:
			p.pos = pos
			p.flush(buf[run:pos])
			p.err = p.syntax("control character %q in a string", c)
			return false
		case c < utf8.RuneSelf:
			pos++
		default:
			if !utf8.FullRune(buf[pos:]) {
				// A character cut by the fragment's end: wait for the rest of it.
				p.pos = pos
				p.flush(buf[run:pos])
				return false
			}
			r, n := utf8.DecodeRune(buf[pos:])
			if r == utf8.RuneError && n == 1 {
				p.scratch = append(append(p.scratch, buf[run:pos]...), string(utf8.RuneError)...)
				pos++
				run = pos
				continue
			}
			pos += n
		}
	}
	p.pos = pos
	if len(p.scratch) == 0 {
		p.emit(buf[run:pos]) // flush's usual case, inlined
	} else {
		p.flush(buf[run:pos])
	}
	return false
}

// beginKey reads the object key whose opening quote is at pos. A key mostly comes whole in the
// text, without escapes, and followed by its colon and its value: it goes to the handler straight
// from the text, and the colon and the value's first byte are read at once. Otherwise what is read
// of it is gathered in key and stringRun reads the rest.
func (p *Parser) beginKey() error {
	buf := p.buf
	start := p.pos + 1
	end := plainRun(buf, start)
	if end == len(buf) || buf[end] != '"' {
		p.isKey, p.key = true, append(p.key[:0], buf[start:end]...)
		p.pos, p.state = end, sString
		return nil
	}
	p.pos, p.state = end+1, sColon
	p.h.Key(buf[start:end])
	if p.pos == len(buf) || buf[p.pos] != ':' {
		return nil
	}
	p.pos++
	p.state = sValue
	if p.pos < len(buf) && !isSpace(buf[p.pos]) {
		return p.value(buf[p.pos])
	}
	return nil
}

// plainRun returns the offset in buf of the first byte from pos on that is not plain (see
// plainByte), or len(buf) when there is none, reading eight bytes at a time as stringRun does.
func plainRun(buf []byte, pos int) int {
	for pos < len(buf) {
		if pos+8 > cap(buf) {
			if !plainByte[buf[pos]] {
				return pos
			}
			pos++
			continue
		}
		m := special8(binary.LittleEndian.Uint64(buf[pos : pos+8]))
		if rest := len(buf) - pos; rest < 8 {
			m &= 1<<(8*rest) - 1
			if m == 0 {
				return len(buf)
			}
		}
		if m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	return pos
}

// special8 marks the bytes of w (little-endian) that are not plain (see plainByte) with their high
// bit: the lowest mark is the first such byte, and none is marked when all are plain. Marks above
// the lowest may be wrong (a borrow), which is why only the lowest is used.
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^('"'*ones), w^('\\'*ones)
	return (w | (w - 0x20*ones) | (quote-ones)&^quote | (backslash-ones)&^backslash) & highs
}

// flush hands the string's text read since the last flush to the open key or string: what scratch
// gathered, then rest.
func (p *Parser) flush(rest []byte) {
	if len(p.scratch) == 0 {
		p.emit(rest)
		return
	}
	p.scratch = append(p.scratch, rest...)
	p.emit(p.scratch)
	p.scratch = p.scratch[:0] // not written when empty: a write costs a barrier while the GC runs
}

// emit hands unescaped text to the open key or string.
func (p *Parser) emit(part []byte) {
	if len(part) == 0 {
		return
	}
	if p.isKey {
		p.key = append(p.key, part...)
		return
	}
	p.h.StringPart(part)
}

func (p *Parser) endString() {
	at := p.base + p.pos
	p.pos++
	if p.isKey {
		p.state = sColon
		p.h.Key(p.key)
		return
	}
	p.afterValue()
	p.h.EndString(at)
}

// escape reads the escape sequence at pos; ok is false when the text ends inside it.
func (p *Parser) escape() (ok bool, err error) {
	rest := p.buf[p.pos:]
	if len(rest) < 2 {
		return false, nil
	}
	var out byte
	switch rest[1] {
	case '"', '\\', '/':
		out = rest[1]
	case 'b':
		out = '\b'
	case 'f':
		out = '\f'
	case 'n':
		out = '\n'
	case 'r':
		out = '\r'
	case 't':
		out = '\t'
	case 'u':
		return p.unicodeEscape(rest)
	default:
		return false, p.syntax("invalid escape %q in a string", rest[:2])
	}
	p.pos += 2
	p.scratch = append(p.scratch, out)
	return true, nil
}

// unicodeEscape reads \uXXXX, and the second half of a surrogate pair when one follows.
func (p *Parser) unicodeEscape(rest []byte) (ok bool, err error) {
	if len(rest) < 6 {
		if !hexDigits(rest[2:]) {
			return false, p.syntax("invalid \\u escape in a string")
		}
		return false, nil
	}
	r, valid := hex4(rest[2:6])
	if !valid {
		return false, p.syntax("invalid \\u escape in a string")
	}
	n := 6
	if utf16.IsSurrogate(r) {
		// Whether a second half follows decides what this half means: wait until it is known.
		next := rest[6:]
		if len(next) < 6 && isPrefix(next, `\u`) && hexDigits(next[min(2, len(next)):]) {
			return false, nil
		}
		r2, valid := rune(0), false
		if len(next) >= 6 && next[0] == '\\' && next[1] == 'u' {
			r2, valid = hex4(next[2:6])
		}
		if dec := utf16.DecodeRune(r, r2); valid && dec != utf8.RuneError {
			r, n = dec, 12
		} else {
			r = utf8.RuneError
		}
	}
	p.pos += n
	p.scratch = utf8.AppendRune(p.scratch, r)
	return true, nil
}
