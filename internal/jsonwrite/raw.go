package jsonwrite

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// maxVerbatimDepth bounds the nesting Verbatim follows. encoding/json refuses values nested more
// than 10000 deep; deeper than this, the caller asks encoding/json, which says so.
const maxVerbatimDepth = 1024

// rawPlain marks the ASCII bytes a string in raw JSON may hold for encoding/json to keep it as it
// is: printable, and none of the quote and backslash that end or escape it, nor the <, > and &
// that encoding/json escapes for HTML.
var rawPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// Verbatim reports whether encoding/json writes raw, given as a json.RawMessage, exactly as it
// is: raw is one valid JSON value with no whitespace between its tokens, whose strings hold valid
// UTF-8 and no <, >, &, U+2028 or U+2029 (which encoding/json would escape) and no escaped
// surrogate (on which encoding/json versions differ), nested at most 1024 deep. Anything else may
// be written otherwise, or refused: the caller then lets encoding/json write it. One pass, no
// allocation.
func Verbatim(raw []byte) bool {
	var objects [maxVerbatimDepth / 64]uint64 // bit d: the container at depth d is an object
	depth, i := 0, 0
	for {
		// A value starts at i.
		if i >= len(raw) {
			return false
		}
		switch c := raw[i]; c {
		case '{', '[':
			if depth == maxVerbatimDepth {
				return false
			}
			word, bit := depth/64, uint64(1)<<(depth%64)
			objects[word] &^= bit
			if c == '{' {
				objects[word] |= bit
			}
			depth++
			i++
			if i < len(raw) && raw[i] == c+2 { // '}' or ']'
				depth--
				i++
				break
			}
			if c == '{' {
				if i = verbatimKey(raw, i); i < 0 {
					return false
				}
			}
			continue
		case '"':
			if i = verbatimString(raw, i); i < 0 {
				return false
			}
		case 't':
			if i = literal(raw, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literal(raw, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literal(raw, i, "null"); i < 0 {
				return false
			}
		default:
			if i = number(raw, i); i < 0 {
				return false
			}
		}
		// A value ends at i: close containers, or go on to the next member or element.
		for {
			if depth == 0 {
				return i == len(raw)
			}
			if i >= len(raw) {
				return false
			}
			object := objects[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			switch raw[i] {
			case ',':
				i++
				if object {
					if i = verbatimKey(raw, i); i < 0 {
						return false
					}
				}
			case '}', ']':
				if (raw[i] == '}') != object {
					return false
				}
				depth--
				i++
				continue
			default:
				return false
			}
			break
		}
	}
}

// verbatimKey checks a member's key and its colon at i, and returns where its value starts, or -1.
func verbatimKey(raw []byte, i int) int {
	if i = verbatimString(raw, i); i < 0 || i >= len(raw) || raw[i] != ':' {
		return -1
	}
	return i + 1
}

// verbatimString checks a string that starts at i and returns the index after it, or -1.
func verbatimString(raw []byte, i int) int {
	if i >= len(raw) || raw[i] != '"' {
		return -1
	}
	for i++; i < len(raw); {
		for i+8 <= len(raw) {
			n := rawPlainPrefix(binary.LittleEndian.Uint64(raw[i:]))
			i += n
			if n < 8 {
				break
			}
		}
		if i >= len(raw) {
			return -1
		}
		c := raw[i]
		if c < utf8.RuneSelf {
			if rawPlain[c] {
				i++
				continue
			}
			switch c {
			case '"':
				return i + 1
			case '\\':
				if i = escape(raw, i); i < 0 {
					return -1
				}
				continue
			}
			return -1
		}
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return -1
		}
		i += size
	}
	return -1
}

// rawPlainPrefix returns how many of the eight bytes of w, from the lowest, rawPlain marks. A high
// bit marks each byte that is not plain: below 0x20 or above 0x7f, or one of " \\ < > &; the lowest
// mark is exact, as borrows only run upwards from a marked byte.
func rawPlainPrefix(w uint64) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash, less, greater, amp := w^('"'*ones), w^('\\'*ones), w^('<'*ones), w^('>'*ones), w^('&'*ones)
	special := ((w - 0x20*ones) | w | ((quote - ones) &^ quote) | ((backslash - ones) &^ backslash) |
		((less - ones) &^ less) | ((greater - ones) &^ greater) | ((amp - ones) &^ amp)) & highs
	if special == 0 {
		return 8
	}
	return bits.TrailingZeros64(special) / 8
}

// escape checks the escape at i, a backslash, and returns the index after it, or -1.
func escape(raw []byte, i int) int {
	if i+1 >= len(raw) {
		return -1
	}
	switch raw[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2
	case 'u':
		if i+6 > len(raw) {
			return -1
		}
		var r rune
		for _, h := range raw[i+2 : i+6] {
			switch {
			case '0' <= h && h <= '9':
				r = r<<4 | rune(h-'0')
			case 'a' <= h && h <= 'f':
				r = r<<4 | rune(h-'a'+10)
			case 'A' <= h && h <= 'F':
				r = r<<4 | rune(h-'A'+10)
			default:
				return -1
			}
		}
		if 0xd800 <= r && r <= 0xdfff {
			return -1
		}
		return i + 6
	}
	return -1
}

// literal checks the word at i and returns the index after it, or -1.
func literal(raw []byte, i int, word string) int {
	if len(raw)-i < len(word) || string(raw[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// number checks a number at i, as JSON's grammar spells it, and returns the index after it, or -1.
func number(raw []byte, i int) int {
	if i < len(raw) && raw[i] == '-' {
		i++
	}
	switch {
	case i < len(raw) && raw[i] == '0':
		i++
	case i < len(raw) && '1' <= raw[i] && raw[i] <= '9':
		i = digits(raw, i)
	default:
		return -1
	}
	if i < len(raw) && raw[i] == '.' {
		if j := digits(raw, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		j := digits(raw, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// digits returns the index of the first byte from i on that is not a digit.
func digits(raw []byte, i int) int {
	for i < len(raw) && '0' <= raw[i] && raw[i] <= '9' {
		i++
	}
	return i
}
