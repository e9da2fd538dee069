package schema

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// The tokens of a value's text, as Checker reads them: strictly the JSON grammar, and nothing
// encoding/json would read differently from what Checker checks.

func (c *Checker) space() {
	for c.Pos < len(c.Data) {
		switch c.Data[c.Pos] {
		case ' ', '\t', '\n', '\r':
			c.Pos++
		default:
			return
		}
	}
}

// literal reads true, false or null.
func (c *Checker) literal(n *Node) bool {
	rest := c.Data[c.Pos:]
	var v any
	var bit uint8
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		v, bit, c.Pos = true, KindBoolean, c.Pos+4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		v, bit, c.Pos = false, KindBoolean, c.Pos+5
	case len(rest) >= 4 && string(rest[:4]) == "null":
		v, bit, c.Pos = nil, KindNull, c.Pos+4
	default:
		return false
	}
	return n.Admits(bit, v)
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
func (c *Checker) str() (escaped, ok bool) {
	c.Pos++
	for c.Pos < len(c.Data) {
		b := c.Data[c.Pos]
		if plainByte[b] {
			c.Pos++
			continue
		}
		switch {
		case b == '"':
			c.Pos++
			return escaped, true
		case b == '\\':
			escaped = true
			if c.Pos+1 >= len(c.Data) {
				return false, false
			}
			switch c.Data[c.Pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.Pos += 2
			case 'u':
				if c.Pos+6 > len(c.Data) {
					return false, false
				}
				for _, h := range c.Data[c.Pos+2 : c.Pos+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false, false
					}
				}
				c.Pos += 6
			default:
				return false, false
			}
		case b < 0x20:
			return false, false
		default:
			r, size := utf8.DecodeRune(c.Data[c.Pos:])
			if r == utf8.RuneError && size == 1 {
				return false, false
			}
			c.Pos += size
		}
	}
	return false, false
}

// decoded returns the string read from start to c.pos, as encoding/json decodes it.
func (c *Checker) decoded(start int, escaped bool) (string, bool) {
	if !escaped {
		return string(c.Data[start+1 : c.Pos-1]), true
	}
	var s string
	return s, json.Unmarshal(c.Data[start:c.Pos], &s) == nil
}

// number reads a number and checks it. Its value is only worked out when the schema needs it.
func (c *Checker) number(n *Node) bool {
	start := c.Pos
	if c.Data[c.Pos] == '-' {
		c.Pos++
	}
	digits := c.digits()
	if digits == 0 || digits > 1 && c.Data[c.Pos-digits] == '0' {
		return false
	}
	plain := true // an integer without a fraction or an exponent
	if c.Pos < len(c.Data) && c.Data[c.Pos] == '.' {
		c.Pos++
		if c.digits() == 0 {
			return false
		}
		plain = false
	}
	if c.Pos < len(c.Data) && (c.Data[c.Pos] == 'e' || c.Data[c.Pos] == 'E') {
		c.Pos++
		if c.Pos < len(c.Data) && (c.Data[c.Pos] == '+' || c.Data[c.Pos] == '-') {
			c.Pos++
		}
		if c.digits() == 0 {
			return false
		}
		plain = false
	}
	text := c.Data[start:c.Pos]
	if c.Safe {
		return n.AdmitsNumber(string(text), plain)
	}
	return n.AdmitsNumber(viewString(text), plain)
}

// NeedsValue reports whether checking a number of this text needs its value: an integer that
// fits a float64's range is of type integer whatever its value, when nothing bounds it.
func (n *Node) NeedsValue(text string, plain bool) bool {
	bounded := n != nil && (n.hasEnum || n.min > math.Inf(-1) || n.max < math.Inf(1) || n.exMin > math.Inf(-1) || n.exMax < math.Inf(1))
	return !plain || len(text) >= 300 || bounded
}

// AdmitsNumber checks a number's text (by JSON's grammar); its value is only worked out when the
// schema needs it.
func (n *Node) AdmitsNumber(text string, plain bool) bool {
	if !n.NeedsValue(text, plain) {
		return n.AdmitsInteger()
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return false // out of float64's range: encoding/json refuses it
	}
	return n.AdmitsFloat(f)
}

// AdmitsInteger checks a number that needs no value: an integer in a float64's range.
func (n *Node) AdmitsInteger() bool { return n == nil || n.allows(KindInteger) }

// AdmitsFloat checks a number's value.
func (n *Node) AdmitsFloat(f float64) bool {
	if n == nil {
		return true
	}
	bit := KindNumber
	if _, frac := math.Modf(f); frac == 0 {
		bit = KindInteger
	}
	return n.allows(bit) && f >= n.min && f <= n.max && f > n.exMin && f < n.exMax && (!n.hasEnum || n.inEnum(f))
}

func (c *Checker) digits() int {
	start := c.Pos
	for c.Pos < len(c.Data) && c.Data[c.Pos] >= '0' && c.Data[c.Pos] <= '9' {
		c.Pos++
	}
	return c.Pos - start
}
