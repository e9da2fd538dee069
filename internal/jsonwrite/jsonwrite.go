package jsonwrite

import (
	"encoding/json"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Field appends ,"name":"value" when value is not empty. name is written as it is: a key that needs
// no escaping.
func Field(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return String(b, value)
}

// safeASCII marks the bytes a JSON string holds as they are.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// plainPrefix returns how many of the eight bytes of w, from the first, JSON holds as they are:
// printable ASCII other than a quote or a backslash. The bytes are read as one word, and a high bit
// marks each byte that is not plain; the lowest mark is exact, as borrows only run upwards from a
// marked byte.
func plainPrefix(w string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	quote, backslash := x^('"'*ones), x^('\\'*ones)
	special := ((x - 0x20*ones) | (quote - ones) | (backslash - ones) | x) & highs
	if special == 0 {
		return 8
	}
	return bits.TrailingZeros64(special) / 8
}

// String appends s as a JSON string, escaped as encoding/json escapes it except that <, > and
// & are kept: quotes, backslashes and control characters escaped, invalid UTF-8 replaced by U+FFFD,
// and U+2028 and U+2029 escaped for JavaScript readers.
func String(b []byte, s string) []byte {
	return append(stringBody(append(b, '"'), s), '"')
}

// stringBody appends s escaped as String escapes it, without the quotes.
func stringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				if i+8 <= len(s) {
					i += plainPrefix(s[i : i+8]) // at least 1: c is plain
				} else {
					i++
				}
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// HTMLString appends s as a JSON string byte for byte as encoding/json writes it: as String does,
// with <, > and & escaped too, and backspace and form feed written \b and \f. A string that is not
// valid UTF-8 is handed to encoding/json, whose versions replace the invalid bytes differently.
func HTMLString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		quoted, _ := json.Marshal(s) // a string always encodes
		return append(b, quoted...)
	}
	b = append(b, '"')
	for {
		// These bytes are ASCII, so cutting s at them never cuts a UTF-8 sequence.
		i := strings.IndexAny(s, "<>&\b\f")
		if i < 0 {
			break
		}
		b = stringBody(b, s[:i])
		switch c := s[i]; c {
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		s = s[i+1:]
	}
	return append(stringBody(b, s), '"')
}

// IntField appends ,"name":v when v is not nil.
func IntField(b []byte, name string, v *int) []byte {
	if v == nil {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	return strconv.AppendInt(b, int64(*v), 10)
}

// FloatField appends ,"name":v when v is not nil, a finite number written as encoding/json writes it: the shortest decimal that
// reads back the same, in exponent form only below 1e-6 or from 1e21 on.
func FloatField(b []byte, name string, v *float64) []byte {
	if v == nil {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	f := *v
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		// e-09 is written e-9, as encoding/json writes it.
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}
