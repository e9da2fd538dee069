package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// texts holds the strings one decode hands out, unescaped into a single buffer as long as the
// input: no string is longer than its JSON text, so every string of the input fits, and the buffer
// is allocated once. Each string is made straight from its bytes, without a copy (view); that is
// sound because the buffer never leaves this type, and bytes are written only past the strings
// already made, never under them. A texts that copies makes each string a copy of its bytes, as
// view does when built with the purego tag.
type texts struct {
	buf    []byte
	n      int // buf[:n] is taken by the strings made so far
	copies bool
}

func newTexts(size int) texts { return texts{buf: make([]byte, size)} }

// copyingTexts is newTexts whose strings are copies, view's safe twin, which tests hold it to.
func copyingTexts(size int) texts { return texts{buf: make([]byte, size), copies: true} }

// take hands out buf[t.n:n], a string not empty, and marks it taken.
func (t *texts) take(n int) string {
	b := t.buf[t.n:n]
	t.n = n
	if t.copies {
		return string(b)
	}
	return view(b)
}

// text reads the string at the cursor into t, or a null, which leaves dst alone.
func (s *scanner) text(t *texts, dst *string) bool {
	if s.null() {
		return true
	}
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	n, next, ok := unescapeInto(t.buf, t.n, s.b, s.i+1)
	if !ok {
		return false
	}
	if n > t.n {
		*dst = t.take(n)
	} else {
		*dst = ""
	}
	s.i = next
	return true
}

// textStop marks the bytes that end a run of a string's text: a quote, a backslash, a control
// character.
var textStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// simpleEscape is the character each one-letter escape stands for; 0 for the others.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeInto copies the text of the JSON string whose body starts at b[i] into dst from dst[n]
// on, unescaped, and returns the end of the text in dst and the index past the closing quote. It
// declines what the scanner declines: control characters, unknown escapes, lone surrogates,
// invalid UTF-8, an unterminated string.
//
// Runs of text move eight bytes at a time (copyRuns), each word stored whole before its stop is
// known, so dst must have eight bytes to spare past the copy: it does whenever n <= i and
// len(dst) >= len(b), which holds for every string of one input unescaped in order, as none grows.
//
// The text is checked as UTF-8 once, in dst, when a byte copied as it was has its high bit set:
// an escape writes ASCII or a whole character, which can neither complete a run's broken
// sequence nor break a sequence of the run after it, so dst is valid exactly when every run is.
func unescapeInto(dst []byte, n int, b []byte, i int) (int, int, bool) {
	if n > i || n < 0 || len(dst) < len(b) {
		return 0, 0, false
	}
	dst = dst[:len(b)]
	// Each byte of b goes to dst at its index less lag, which grows by what each escape saves.
	from, lag, high := n, i-n, uint64(0)
	for {
		i, lag, high = copyRuns(dst, b, i, lag, high)
		for i < len(b) && !textStop[b[i]] {
			high |= uint64(b[i])
			dst[i-lag] = b[i]
			i++
		}
		if i >= len(b) {
			return 0, 0, false
		}
		switch b[i] {
		case '"':
			n = i - lag
			if high&highs != 0 && !utf8.Valid(dst[from:n]) {
				return 0, 0, false
			}
			return n, i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return 0, 0, false
			}
			if c := simpleEscape[b[i+1]]; c != 0 {
				dst[i-lag] = c
				i, lag = i+2, lag+1
				continue
			}
			if b[i+1] != 'u' {
				return 0, 0, false
			}
			r, size := unicodeRune(b[i:])
			if size == 0 {
				return 0, 0, false
			}
			written := utf8.EncodeRune(dst[i-lag:], r)
			i, lag = i+size, lag+size-written
		default:
			return 0, 0, false
		}
	}
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// stopMarks marks, in the high bit of each byte, the bytes of the word x that end a run: a byte
// below 0x20, a quote or a backslash. A byte that is none of them and still has its high bit set
// had it in x, so it is not marked. The lowest mark is exact, as borrows only run upwards from a
// marked byte; the marks above it may not be.
func stopMarks(x uint64) uint64 {
	quote, backslash := x^('"'*ones), x^('\\'*ones)
	return ((x - 0x20*ones) | (quote - ones) | (backslash - ones)) &^ x & highs
}

// copyRunsSafe copies b[i:] to dst[i-lag:] eight bytes at a time, while more than eight bytes are
// left (so that the byte after a stop is there too), up to a stop other than a one-letter escape,
// which it writes without leaving the loop: JSON text inside a string (a tool call's arguments)
// escapes every quote, so its runs between escapes are a few bytes long. It returns where it
// stopped, the lag then, and high with the bits of every byte copied as it was. It needs
// 0 <= lag <= i <= len(b) <= len(dst); given less, it copies nothing. copyRuns is this loop
// through pointers, without bounds checks, except when built with the purego tag, which makes it
// this loop.
func copyRunsSafe(dst, b []byte, i, lag int, high uint64) (int, int, uint64) {
	if lag < 0 || lag > i || len(dst) < len(b) {
		return i, lag, high
	}
	for i+8 < len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		binary.LittleEndian.PutUint64(dst[i-lag:], x)
		stop := stopMarks(x)
		if stop == 0 {
			high |= x
			i += 8
			continue
		}
		// The marked bytes have no high bit in x, so the marks below the lowest one's keep
		// only the bytes before it.
		high |= x & (stop - 1)
		i += bits.TrailingZeros64(stop) / 8
		if b[i] != '\\' {
			break
		}
		c := simpleEscape[b[i+1]]
		if c == 0 {
			break
		}
		dst[i-lag] = c
		i, lag = i+2, lag+1
	}
	return i, lag, high
}

// unicodeRune reads the \u escape at the start of b, or the pair of them a character beyond the
// Basic Multilingual Plane takes; size is 0 when b holds neither, lone surrogates included.
func unicodeRune(b []byte) (r rune, size int) {
	r, ok := hex4(b[2:])
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
		return 0, 0
	}
	low, ok := hex4(b[8:])
	pair := utf16.DecodeRune(r, low)
	if !ok || pair == utf8.RuneError {
		return 0, 0
	}
	return pair, 12
}
