package infergate

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// plainASCII marks the bytes a string holds as they are: printable ASCII but '"' and '\\'.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainRun returns how many bytes of s from i a string holds as they are, eight at a time: a word
// has none of '"', '\\', a control character or a byte of a multi-byte character when no byte
// borrows in the subtractions nor has its high bit set; else its lowest byte marked is the first
// of those (a borrow only marks bytes above the one it comes from).
func plainRun(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	j := i
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		if marked := (x | (x - 0x20*ones) | ((x ^ '"'*ones) - ones) | ((x ^ '\\'*ones) - ones)) & highs; marked != 0 {
			return j + bits.TrailingZeros64(marked)/8 - i
		}
	}
	for j < len(b) && plainASCII[b[j]] {
		j++
	}
	return j - i
}

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
		j += plainRun(d.s, j)
		if j == len(d.s) {
			break
		}
		c := d.s[j]
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
	d.at = len(d.arena)
	d.write(d.s[start:j])
	for j < len(d.s) {
		run := plainRun(d.s, j)
		d.write(d.s[j : j+run])
		if j += run; j == len(d.s) {
			break
		}
		switch c := d.s[j]; {
		case c == '"':
			d.i = j + 1
			s := d.arena[d.at:]
			d.texts.handed += len(s)
			return unsafe.String(unsafe.SliceData(s), len(s)), true
		case c == '\\':
			if j+1 >= len(d.s) {
				return "", false
			}
			j += 2
			var b byte
			switch d.s[j-1] {
			case '"', '\\', '/':
				b = d.s[j-1]
			case 'b':
				b = '\b'
			case 'f':
				b = '\f'
			case 'n':
				b = '\n'
			case 'r':
				b = '\r'
			case 't':
				b = '\t'
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
				d.room(utf8.UTFMax)
				d.arena = utf8.AppendRune(d.arena, r)
				continue
			default:
				return "", false
			}
			d.room(1)
			d.arena = append(d.arena, b)
		case c < utf8.RuneSelf:
			return "", false // a control character
		default:
			r, size := utf8.DecodeRuneInString(d.s[j:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			d.write(d.s[j : j+size])
			j += size
		}
	}
	return "", false
}

// write appends piece to the string being written to the arena.
func (d *plainDecoder) write(piece string) {
	d.room(len(piece))
	d.arena = append(d.arena, piece...)
}

// room makes room for n more bytes in the arena: when it is full, the string being written moves
// to a new one, and the strings cut before keep the old one.
func (d *plainDecoder) room(n int) {
	if len(d.arena)+n <= cap(d.arena) {
		return
	}
	written := d.arena[d.at:]
	fresh := make([]byte, len(written), d.texts.size(d, len(written)+n, len(written), 64))
	copy(fresh, written)
	d.arena, d.at = fresh, 0
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

// numberText reads a number by JSON's grammar and returns its text, "" when there is none; plain
// says it has neither a fraction nor an exponent.
func (d *plainDecoder) numberText() (text string, plain bool) {
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
		return "", false
	}
	plain = true
	if i < len(s) && s[i] == '.' {
		if i = digits(s, i+1); s[i-1] == '.' {
			return "", false
		}
		plain = false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		at := i
		if i = digits(s, i); i == at {
			return "", false
		}
		plain = false
	}
	d.i = i
	return s[start:i], plain
}

// smallInt is the value of a plain number of at most 18 digits, which an int64 holds.
func smallInt(text string, plain bool) (int64, bool) {
	neg := text[0] == '-'
	digits := text
	if neg {
		digits = text[1:]
	}
	if !plain || len(digits) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range []byte(digits) {
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat is the value of a number (by JSON's grammar) whose digits make an integer of at most
// 2^53 and whose power of ten is at most 22 either way: both are exact in a float64, so one
// multiplication or division rounds their product as strconv.ParseFloat rounds the text. ok is
// false for the other numbers.
func exactFloat(text string) (f float64, ok bool) {
	i, neg := 0, text[0] == '-'
	if neg {
		i++
	}
	var m uint64
	count, exp := 0, 0
	for ; i < len(text) && isDigit(text[i]); i++ {
		m, count = m*10+uint64(text[i]-'0'), count+1
	}
	if i < len(text) && text[i] == '.' {
		for i++; i < len(text) && isDigit(text[i]); i++ {
			m, count, exp = m*10+uint64(text[i]-'0'), count+1, exp-1
		}
	}
	if i < len(text) { // an exponent
		i++
		eneg := text[i] == '-'
		if text[i] == '+' || eneg {
			i++
		}
		if len(text)-i > 3 {
			return 0, false
		}
		e := 0
		for ; i < len(text); i++ {
			e = e*10 + int(text[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if count > 19 || m > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	f = float64(m)
	if exp < 0 {
		f /= exactPow10[-exp]
	} else {
		f *= exactPow10[exp]
	}
	if neg {
		f = -f
	}
	return f, true
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
	text, _ := d.numberText()
	return text != ""
}
