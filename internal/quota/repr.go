package quota

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ReprLen is the length in code points of Python's repr() of s: the quotes, and each character as
// repr writes it. The quotes are single unless s holds a single quote and no double one; a
// backslash, the quote itself, tab, newline and carriage return take two characters; other
// control characters and DEL \xhh; a character Python does not print (a separator or an "other"
// category, but the space) \xhh, \uhhhh or \Uhhhhhhhh by its size. A byte that is not UTF-8 is
// the U+FFFD it is sent as.
func ReprLen(s string) int {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	n := 2
	for _, r := range s {
		n += reprRuneLen(r, quote)
	}
	return n
}

func reprRuneLen(r, quote rune) int {
	switch {
	case r == quote, r == '\\', r == '\t', r == '\n', r == '\r':
		return 2
	case r < ' ', r == 0x7f:
		return 4
	case r < utf8.RuneSelf, unicode.IsPrint(r):
		// Go's printable characters are Python's: letters, marks, numbers, punctuation, symbols
		// and the ASCII space.
		return 1
	case r <= 0xff:
		return 4
	case r <= 0xffff:
		return 6
	}
	return 10
}
