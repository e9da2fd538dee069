package infergate

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// The tokens of a value's text, as quickCheck reads them: strictly the JSON grammar, and nothing
// encoding/json would read differently from what quickCheck checks.

func (c *quickCheck) space() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// literal reads true, false or null.
func (c *quickCheck) literal(n *quickNode) bool {
	rest := c.data[c.pos:]
	var v any
	var bit uint8
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		v, bit, c.pos = true, quickBoolean, c.pos+4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		v, bit, c.pos = false, quickBoolean, c.pos+5
	case len(rest) >= 4 && string(rest[:4]) == "null":
		v, bit, c.pos = nil, quickNull, c.pos+4
	default:
		return false
	}
	return n.admits(bit, v)
}

// plainByte marks the bytes a string holds as they are: not a quote, a backslash, a control
// character or the start of a multi-byte character.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < 0x80; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// str reads a string; escaped says it holds escapes. Text that is not valid UTF-8 is refused:
// the validator would see it with replacement characters.
func (c *quickCheck) str() (escaped, ok bool) {
	c.pos++
	for c.pos < len(c.data) {
		b := c.data[c.pos]
		if plainByte[b] {
			c.pos++
			continue
		}
		switch {
		case b == '"':
			c.pos++
			return escaped, true
		case b == '\\':
			escaped = true
			if c.pos+1 >= len(c.data) {
				return false, false
			}
			switch c.data[c.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.pos += 2
			case 'u':
				if c.pos+6 > len(c.data) {
					return false, false
				}
				for _, h := range c.data[c.pos+2 : c.pos+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false, false
					}
				}
				c.pos += 6
			default:
				return false, false
			}
		case b < 0x20:
			return false, false
		default:
			r, size := utf8.DecodeRune(c.data[c.pos:])
			if r == utf8.RuneError && size == 1 {
				return false, false
			}
			c.pos += size
		}
	}
	return false, false
}

// decoded returns the string read from start to c.pos, as encoding/json decodes it.
func (c *quickCheck) decoded(start int, escaped bool) (string, bool) {
	if !escaped {
		return string(c.data[start+1 : c.pos-1]), true
	}
	var s string
	return s, json.Unmarshal(c.data[start:c.pos], &s) == nil
}

// number reads a number and checks it. Its value is only worked out when the schema needs it.
func (c *quickCheck) number(n *quickNode) bool {
	start := c.pos
	if c.data[c.pos] == '-' {
		c.pos++
	}
	digits := c.digits()
	if digits == 0 || digits > 1 && c.data[c.pos-digits] == '0' {
		return false
	}
	plain := true // an integer without a fraction or an exponent
	if c.pos < len(c.data) && c.data[c.pos] == '.' {
		c.pos++
		if c.digits() == 0 {
			return false
		}
		plain = false
	}
	if c.pos < len(c.data) && (c.data[c.pos] == 'e' || c.data[c.pos] == 'E') {
		c.pos++
		if c.pos < len(c.data) && (c.data[c.pos] == '+' || c.data[c.pos] == '-') {
			c.pos++
		}
		if c.digits() == 0 {
			return false
		}
		plain = false
	}
	return n.admitsNumber(unsafe.String(&c.data[start], c.pos-start), plain)
}

// needsValue reports whether checking a number of this text needs its value: an integer that
// fits a float64's range is of type integer whatever its value, when nothing bounds it.
func (n *quickNode) needsValue(text string, plain bool) bool {
	bounded := n != nil && (n.hasEnum || n.min > math.Inf(-1) || n.max < math.Inf(1) || n.exMin > math.Inf(-1) || n.exMax < math.Inf(1))
	return !plain || len(text) >= 300 || bounded
}

// admitsNumber checks a number's text (by JSON's grammar); its value is only worked out when the
// schema needs it.
func (n *quickNode) admitsNumber(text string, plain bool) bool {
	if !n.needsValue(text, plain) {
		return n.admitsInteger()
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return false // out of float64's range: encoding/json refuses it
	}
	return n.admitsFloat(f)
}

// admitsInteger checks a number that needs no value: an integer in a float64's range.
func (n *quickNode) admitsInteger() bool { return n == nil || n.allows(quickInteger) }

// admitsFloat checks a number's value.
func (n *quickNode) admitsFloat(f float64) bool {
	if n == nil {
		return true
	}
	bit := quickNumber
	if _, frac := math.Modf(f); frac == 0 {
		bit = quickInteger
	}
	return n.allows(bit) && f >= n.min && f <= n.max && f > n.exMin && f < n.exMax && (!n.hasEnum || n.inEnum(f))
}

func (c *quickCheck) digits() int {
	start := c.pos
	for c.pos < len(c.data) && c.data[c.pos] >= '0' && c.data[c.pos] <= '9' {
		c.pos++
	}
	return c.pos - start
}
