package typed

import (
	"math"
	"math/bits"
	"strings"
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

// plainRun returns how many bytes of s from i a string holds as they are, eight at a time: a word
// has none of '"', '\\', a control character or a byte of a multi-byte character when no byte
// borrows in the subtractions nor has its high bit set; else its lowest byte marked is the first
// of those (a borrow only marks bytes above the one it comes from).
func plainRun(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	j := i
	for ; j+8 <= len(s); j += 8 {
		x := word(s, j)
		if marked := (x | (x - 0x20*ones) | ((x ^ '"'*ones) - ones) | ((x ^ '\\'*ones) - ones)) & highs; marked != 0 {
			return j + bits.TrailingZeros64(marked)/8 - i
		}
	}
	for j < len(s) && plainASCII[s[j]] {
		j++
	}
	return j - i
}

// word reads the eight bytes of s from j as a little-endian word, which the compiler makes one load.
func word(s string, j int) uint64 {
	b := s[j : j+8] // one bounds check, not one a byte
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
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
		if j += plainRun(d.s, j); j == len(d.s) {
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
// to d.arena, which is only appended to: the strings cut from it before stay as they were. Its end
// is found first, to make room for it at once: no escape is shorter than what it stands for. It
// is the first quotation mark after an even number of backslashes.
func (d *plainDecoder) escaped(start, j int) (string, bool) {
	end := j
	for {
		q := strings.IndexByte(d.s[end:], '"')
		if q < 0 {
			return "", false
		}
		end += q
		k := end
		for d.s[k-1] == '\\' {
			k--
		}
		if (end-k)%2 == 0 {
			break
		}
		end++
	}
	d.room(end - start)
	s := d.s
	buf := append(d.arena, s[start:j]...)
	at := len(d.arena)
	for j < end {
		c := s[j]
		if c != '\\' {
			if plainASCII[c] {
				// Byte by byte: the pieces between escapes are short.
				buf = append(buf, c)
				j++
				continue
			}
			if c < utf8.RuneSelf {
				return "", false // a control character
			}
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			buf = append(buf, s[j:j+size]...)
			j += size
			continue
		}
		j += 2
		switch s[j-1] {
		case '"', '\\', '/':
			buf = append(buf, s[j-1])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4(j)
			j += 4
			if ok && utf16.IsSurrogate(r) {
				var low rune
				if ok = r < 0xdc00 && j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u'; ok {
					low, ok = d.hex4(j + 2)
					j += 6
					r = utf16.DecodeRune(r, low)
					ok = ok && r != utf8.RuneError
				}
			}
			if !ok {
				return "", false
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
	}
	d.arena, d.i = buf, end+1
	d.texts.handed += len(buf) - at
	if d.safe {
		return string(buf[at:]), true
	}
	return viewString(buf[at:]), true
}

// room makes room for n more bytes in the arena: when it has less, a new one is made, and the
// strings cut before keep the old one.
func (d *plainDecoder) room(n int) {
	if len(d.arena)+n > cap(d.arena) {
		d.arena = make([]byte, 0, d.texts.size(d, n, 0, 64))
	}
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

// plainNumber is a number's text, and its digits as an integer with a power of ten when they fit.
type plainNumber struct {
	text  string
	plain bool   // neither a fraction nor an exponent
	neg   bool   // a minus sign
	m     uint64 // the digits, when there are at most 19 of them
	count int    // digits
	exp   int    // the power of ten, when its digits are at most 4
	big   bool   // more digits than m or exp hold
}

// numberText reads a number by JSON's grammar; its text is "" when there is none.
func (d *plainDecoder) numberText() (n plainNumber) {
	s, i := d.s, d.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
		n.neg = true
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
		n.count = 1
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = n.digits(s, i)
	default:
		return plainNumber{}
	}
	n.plain = true
	if i < len(s) && s[i] == '.' {
		at := i + 1
		if i = n.digits(s, at); i == at {
			return plainNumber{}
		}
		n.exp, n.plain = at-i, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := i < len(s) && s[i] == '-'
		if i < len(s) && (s[i] == '+' || neg) {
			i++
		}
		at := i
		e := 0
		for ; i < len(s) && isDigit(s[i]); i++ {
			e = e*10 + int(s[i]-'0')
		}
		if i == at {
			return plainNumber{}
		}
		n.big = n.big || i-at > 4
		if neg {
			e = -e
		}
		n.exp, n.plain = n.exp+e, false
	}
	d.i = i
	n.text = s[start:i]
	return n
}

// digits reads digits into n.m from i, and returns where they end.
func (n *plainNumber) digits(s string, i int) int {
	for ; i < len(s) && isDigit(s[i]); i++ {
		n.m = n.m*10 + uint64(s[i]-'0')
		n.count++
	}
	n.big = n.big || n.count > 19
	return i
}

// int is the number's value when it is an integer of at most 18 digits, which an int64 holds.
func (n *plainNumber) int() (int64, bool) {
	if !n.plain || n.count > 18 {
		return 0, false
	}
	if n.neg {
		return -int64(n.m), true
	}
	return int64(n.m), true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// float is the number's value when its digits make an integer of at most 2^53 and its power of
// ten is at most 22 either way: both are exact in a float64, so one multiplication or division
// rounds their product as strconv.ParseFloat rounds the text. Larger digits (up to 19 of them)
// with a fraction of at most 19 digits, as a float64 printed in full has, are divided exactly
// (quotient).
func (n *plainNumber) float() (float64, bool) {
	if n.big || n.exp < -22 || n.exp > 22 {
		return 0, false
	}
	var f float64
	switch {
	case n.m <= 1<<53:
		f = float64(n.m)
		if n.exp < 0 {
			f /= exactPow10[-n.exp]
		} else {
			f *= exactPow10[n.exp]
		}
	case n.exp < 0 && n.exp >= -19:
		f = quotient(n.m, pow10[-n.exp])
	default:
		return 0, false
	}
	if n.neg {
		f = -f
	}
	return f, true
}

// pow10 are the powers of ten a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// quotient returns m/d rounded to the nearest float64, ties to even, as strconv.ParseFloat rounds,
// for m above 2^53 and d from 10 to 10^19. m is shifted left by s so that the 128-bit division
// gives a quotient q of exactly 64 bits (m/d is between 2^(bits(m)-bits(d)-1) and
// 2^(bits(m)-bits(d)+1), hence the shift, and one more step when q falls short): q's top 53 bits
// are the float's, rounded by the bits below them and the remainder.
func quotient(m, d uint64) float64 {
	s := 63 - bits.Len64(m) + bits.Len64(d) // from 3 to 73
	var hi, lo uint64
	if s < 64 {
		hi, lo = m>>(64-s), m<<s
	} else {
		hi = m << (s - 64)
	}
	q, r := bits.Div64(hi, lo, d) // hi < d: m<<s is below d<<64
	if q < 1<<63 {
		s++
		if r >= d-r {
			q, r = 2*q+1, r-(d-r)
		} else {
			q, r = 2*q, 2*r
		}
	}
	mant, rest := q>>11, q&(1<<11-1)
	if rest > 1<<10 || rest == 1<<10 && (r != 0 || mant&1 == 1) {
		if mant++; mant == 1<<53 {
			mant, s = 1<<52, s-1
		}
	}
	// m/d is mant × 2^(11-s), mant of 53 bits: a normal float64 whose exponent is 63-s.
	return math.Float64frombits(uint64(1023+63-s)<<52 | mant&(1<<52-1))
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
	return d.numberText().text != ""
}
