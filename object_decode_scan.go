package infergate

import (
	"unicode/utf16"
	"unicode/utf8"
)

// plainASCII marks the bytes a string holds as they are: printable ASCII but '"' and '\\'.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads the string at d.i (a '"'). One without escapes is a piece of d.s; escapes other than
// a surrogate pair's halves in order, invalid UTF-8 and control characters are left to
// json.Unmarshal, whose versions replace or refuse them.
func (d *plainDecoder) str() (string, bool) {
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	j := start
	for j < len(d.s) {
		c := d.s[j]
		if plainASCII[c] {
			j++
			continue
		}
		switch {
		case c == '"':
			d.i = j + 1
			return d.s[start:j], true
		case c == '\\':
			return d.escaped(start, j)
		case c < utf8.RuneSelf:
			return "", false
		}
		r, size := utf8.DecodeRuneInString(d.s[j:])
		if r == utf8.RuneError && size == 1 {
			return "", false
		}
		j += size
	}
	return "", false
}

// escaped reads the rest of a string with escapes, from j, the first '\\'. The string is written
// to d.arena, which is only appended to: the strings cut from it before stay as they were.
func (d *plainDecoder) escaped(start, j int) (string, bool) {
	at := d.arena.Len()
	buf := &d.arena
	buf.WriteString(d.s[start:j])
	for j < len(d.s) {
		c := d.s[j]
		switch {
		case c == '"':
			d.i = j + 1
			return buf.String()[at:], true
		case c == '\\':
			if j+1 >= len(d.s) {
				return "", false
			}
			j += 2
			switch d.s[j-1] {
			case '"', '\\', '/':
				buf.WriteByte(d.s[j-1])
			case 'b':
				buf.WriteByte('\b')
			case 'f':
				buf.WriteByte('\f')
			case 'n':
				buf.WriteByte('\n')
			case 'r':
				buf.WriteByte('\r')
			case 't':
				buf.WriteByte('\t')
			case 'u':
				r, ok := d.hex4(j)
				j += 4
				if ok && utf16.IsSurrogate(r) {
					var low rune
					if ok = r < 0xdc00 && j+1 < len(d.s) && d.s[j] == '\\' && d.s[j+1] == 'u'; ok {
						low, ok = d.hex4(j + 2)
						j += 6
						r = utf16.DecodeRune(r, low)
						ok = ok && r != utf8.RuneError
					}
				}
				if !ok {
					return "", false
				}
				buf.WriteRune(r)
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			buf.WriteByte(c)
			j++
		default:
			r, size := utf8.DecodeRuneInString(d.s[j:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			buf.WriteString(d.s[j : j+size])
			j += size
		}
	}
	return "", false
}

func (d *plainDecoder) hex4(j int) (rune, bool) {
	if j+4 > len(d.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[j : j+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number by JSON's grammar and returns its text, "" when there is none.
func (d *plainDecoder) number() string {
	s, i := d.s, d.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return ""
	}
	if i < len(s) && s[i] == '.' {
		if i = digits(s, i+1); s[i-1] == '.' {
			return ""
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		at := i
		if i = digits(s, i); i == at {
			return ""
		}
	}
	d.i = i
	return s[start:i]
}

func digits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// skip passes over the next value, checking its syntax as far as finding its end needs.
func (d *plainDecoder) skip(depth int) bool {
	if depth > maxPlainDepth {
		return false
	}
	switch c := d.next(); c {
	case '"':
		_, ok := d.str()
		return ok
	case 'n':
		return d.literal("null")
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case '{':
		return d.members(func(string) bool { return d.skip(depth + 1) })
	case '[':
		d.i++
		if d.next() == ']' {
			d.i++
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			switch d.next() {
			case ',':
				d.i++
			case ']':
				d.i++
				return true
			default:
				return false
			}
		}
	}
	return d.number() != ""
}
