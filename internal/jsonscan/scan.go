// Package jsonscan decodes the JSON shapes the SDK reads most often without reflection. A decoder
// takes only the shape it was written for and declines everything else (an escape it does not
// handle, a duplicate key, a value of an unexpected type), so that the caller decodes the same
// bytes with encoding/json, which then decides. A decoder never accepts input that encoding/json
// rejects, and what it accepts it reads as encoding/json would: the package's differential tests
// and fuzz targets (FuzzChunkDecoder, FuzzDecodeCompletion, FuzzDecodeCatalog, FuzzUnquote,
// FuzzSkip) hold it to that.
package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner walks one JSON text. Its methods report false when the input leaves the fast path, and
// the caller gives up the whole text then: nothing is recovered halfway.
type scanner struct {
	b   []byte
	i   int
	buf []byte // unescaped strings, appended to during one text, so earlier results stay valid

	// What a ChunkDecoder keeps of a text for its template: where its string values and raw
	// values lie, and whether a list moved under the pointers it noted.
	record bool
	grew   bool
	slots  []slot
	raws   []rawRef

	// extra is set once a value was handed over as a Field: it aliases the text, and a
	// ChunkDecoder keeps no template of a text that has one.
	extra bool

	// roomy keeps buf as long as the text (up to maxRoomyText), for slowStr's word-at-a-time
	// path: a ChunkDecoder's texts are small, and its buffer serves every chunk of a stream.
	roomy bool
}

// maxRoomyText bounds the buffer a roomy scanner keeps; a longer text takes strings a byte at a
// time, its buffer growing only by what they need.
const maxRoomyText = 64 << 10

// Field is a key a decoder does not model and its value's JSON text, as it came (null too). Key is
// unescaped; both alias the input or the decoder's memory, as the decoder's strings do.
type Field struct {
	Key, Value []byte
}

// maxDepth bounds the nesting of skipped values; deeper input goes to encoding/json.
const maxDepth = 64

// plain marks the bytes a string may hold without a second look: printable ASCII that is neither
// a quote nor a backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *scanner) reset(b []byte) {
	s.b, s.i = b, 0
	// On its own, buf cut to its start stores no pointer, and so costs no write barrier while the
	// collector marks: the compiler keeps the memory buf points at.
	s.buf = s.buf[:0]
}

func (s *scanner) ws() {
	i := s.i
	for i < len(s.b) && s.b[i] <= ' ' && (s.b[i] == ' ' || s.b[i] == '\t' || s.b[i] == '\n' || s.b[i] == '\r') {
		i++
	}
	s.i = i
}

// peek skips white space and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// eat consumes c after white space.
func (s *scanner) eat(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// literal consumes true, false or null.
func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// null consumes a null if one comes next.
func (s *scanner) null() bool { return s.peek() == 'n' && s.literal("null") }

// str reads a string at the cursor. The result aliases the input when the string has no escapes,
// and the scanner's buffer otherwise.
func (s *scanner) str() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	i := plainRun(s.b, start)
	if i < len(s.b) && s.b[i] == '"' {
		s.i = i + 1
		return s.b[start:i], true
	}
	return s.slowStr(start, i)
}

// plainRun returns the index of the first byte from i on that is not plain, eight bytes at a time.
func plainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		quote, backslash := x^('"'*ones), x^('\\'*ones)
		// A high bit marks a byte below 0x20 or above 0x7f, a quote or a backslash; the lowest
		// mark is exact, as borrows only run upwards from a marked byte.
		special := ((x - 0x20*ones) | x | ((quote - ones) &^ quote) | ((backslash - ones) &^ backslash)) & highs
		if special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	for i < len(b) && plain[b[i]] {
		i++
	}
	return i
}

// slowStr reads a string with escapes or non-ASCII text, unescaping it into the buffer; its text
// starts at start, and is plain up to i. Lone surrogate escapes and invalid UTF-8 are declined:
// encoding/json versions differ on them.
//
// A buffer with room for the whole text, which a scanner that reads many small texts keeps (see
// roomy), takes the string through unescapeInto, a word at a time: a tool call's arguments come
// as short strings that escape a byte in five.
func (s *scanner) slowStr(start, i int) ([]byte, bool) {
	if s.room() {
		return s.unescape(start)
	}
	from := len(s.buf)
	s.buf = append(s.buf, s.b[start:i]...)
	for i < len(s.b) {
		c := s.b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return s.buf[from:], true
		case c < 0x20:
			return nil, false
		case plain[c]:
			end := plainRun(s.b, i)
			s.buf = append(s.buf, s.b[i:end]...)
			i = end
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(s.b[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, false
			}
			s.buf = append(s.buf, s.b[i:i+n]...)
			i += n
		default:
			n, ok := s.escape(i)
			if !ok {
				return nil, false
			}
			i += n
		}
	}
	return nil, false
}

// room reports whether buf has room for the whole text, making it when the scanner is roomy.
func (s *scanner) room() bool {
	if s.roomy && cap(s.buf) < len(s.b) && len(s.b) <= maxRoomyText {
		// The strings already read stay in the old memory; none is copied.
		// A quarter to spare spares a reallocation for the next text of a stream, a few bytes longer.
		s.buf = make([]byte, len(s.buf), max(len(s.b)+len(s.b)/4, 2*cap(s.buf)))
	}
	return cap(s.buf) >= len(s.b)
}

// unescape reads the string whose text starts at start into buf, which has room for the whole
// text, through unescapeInto.
func (s *scanner) unescape(start int) ([]byte, bool) {
	from := len(s.buf)
	n, next, ok := unescapeInto(s.buf[:cap(s.buf)], from, s.b, start)
	if !ok {
		return nil, false
	}
	s.buf = s.buf[:n] // on its own, with no store of a pointer (see reset)
	s.i = next
	return s.buf[from:], true
}

// unescaped reads the string at the cursor as str does, but when buf has room, straight through
// unescapeInto, without first looking for the end of a plain run: the strings a replayed chunk
// reads again (a tool call's arguments) mostly have escapes.
func (s *scanner) unescaped() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' || (cap(s.buf) < len(s.b) && !s.room()) {
		return s.str()
	}
	from := len(s.buf)
	n, next, ok := unescapeInto(s.buf[:cap(s.buf)], from, s.b, s.i+1)
	if !ok {
		return nil, false
	}
	s.buf = s.buf[:n] // on its own, with no store of a pointer (see reset)
	s.i = next
	return s.buf[from:], true
}

// escape appends the character of the escape at i and returns the escape's length.
func (s *scanner) escape(i int) (int, bool) {
	if i+1 >= len(s.b) {
		return 0, false
	}
	var c byte
	switch s.b[i+1] {
	case '"', '\\', '/':
		c = s.b[i+1]
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		return s.unicodeEscape(i)
	default:
		return 0, false
	}
	s.buf = append(s.buf, c)
	return 2, true
}

func (s *scanner) unicodeEscape(i int) (int, bool) {
	r, ok := hex4(s.b[i+2:])
	if !ok {
		return 0, false
	}
	if !utf16.IsSurrogate(r) {
		s.buf = utf8.AppendRune(s.buf, r)
		return 6, true
	}
	if len(s.b) < i+12 || s.b[i+6] != '\\' || s.b[i+7] != 'u' {
		return 0, false
	}
	low, ok := hex4(s.b[i+8:])
	pair := utf16.DecodeRune(r, low)
	if !ok || pair == utf8.RuneError {
		return 0, false
	}
	s.buf = utf8.AppendRune(s.buf, pair)
	return 12, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// integer reads a JSON number that is a plain integer of at most maxDigits digits; a fraction, an
// exponent or a longer number is declined, as encoding/json reports those as type errors.
func (s *scanner) integer(maxDigits int) (int64, bool) {
	s.ws()
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	start := s.i
	var n int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > maxDigits || (digits > 1 && s.b[start] == '0') || s.numberGoesOn() {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func (s *scanner) numberGoesOn() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '.', 'e', 'E', '-', '+':
		return true
	}
	return s.b[s.i] >= '0' && s.b[s.i] <= '9'
}

// number skips any valid JSON number.
func (s *scanner) number() bool {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case !s.digits():
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && isDigit(s.b[s.i]) {
		s.i++
	}
	return s.i > start
}

// skip validates and skips any JSON value.
func (s *scanner) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch s.peek() {
	case '"':
		start := s.i
		_, ok := s.str()
		s.note(start, nil, nil)
		return ok
	case '{':
		s.i++
		if s.eat('}') {
			return true
		}
		for {
			if _, ok := s.str(); !ok || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
			if s.eat('}') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case '[':
		s.i++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(']') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return s.number()
	}
	return false
}

// raw skips a value and returns its text.
func (s *scanner) raw() ([]byte, bool) {
	s.ws()
	start := s.i
	ok := s.skip(0)
	return s.b[start:s.i], ok
}

// object calls field for each key of the object at the cursor; field reads the value and reports
// whether it could. It takes only an object: callers that accept null check for it first.
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.eat(':') || !field(key) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// array calls elem for each element of the array at the cursor.
func (s *scanner) array(elem func() bool) bool {
	if !s.eat('[') {
		return false
	}
	if s.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// end reports whether the text ends right after the value, as the caller's data must.
func (s *scanner) end() bool { return s.i == len(s.b) }

// unknown skips the value of a key the decoder does not read. encoding/json matches keys without
// regard to case (and, in some versions, to '_' and '-'), so a key that might be one of known in
// disguise is declined rather than skipped.
func (s *scanner) unknown(key []byte, known []string) bool {
	for _, k := range known {
		if resembles(key, k) {
			return false
		}
	}
	return s.skip(1)
}

// field hands over the value of a key the decoder does not model, raw, in *dst. A key that might be
// one of known in disguise is declined, as unknown declines it.
func (s *scanner) field(key []byte, known []string, dst *[]Field) bool {
	for _, k := range known {
		if resembles(key, k) {
			return false
		}
	}
	s.ws()
	start, record := s.i, s.record
	s.record = false // strings inside the value are no slots: the value goes over whole
	ok := s.skip(1)
	s.record = record
	*dst = append(*dst, Field{Key: key, Value: s.b[start:s.i]})
	s.extra = true
	return ok
}

// resembles reports whether key could match name under a case-insensitive match that ignores
// '_' and '-'. Non-ASCII keys resemble everything, as Unicode folding has its surprises.
func resembles(key []byte, name string) bool {
	i, j := 0, 0
	for {
		for i < len(key) && (key[i] == '_' || key[i] == '-') {
			i++
		}
		for j < len(name) && (name[j] == '_' || name[j] == '-') {
			j++
		}
		if i == len(key) || j == len(name) {
			return i == len(key) && j == len(name)
		}
		a, b := key[i], name[j]
		if a >= utf8.RuneSelf {
			return true
		}
		if lower(a) != lower(b) {
			return false
		}
		i, j = i+1, j+1
	}
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Unquote returns the text of the JSON string b (quotes included), unescaped in one pass. It
// declines what the scanner declines: lone surrogate escapes, invalid UTF-8, trailing bytes.
func Unquote(b []byte) (string, bool) {
	if len(b) >= 2 && b[0] == '"' {
		if i := plainRun(b, 1); i == len(b)-1 && b[i] == '"' {
			return string(b[1:i]), true
		}
	}
	s := scanner{b: b, buf: make([]byte, 0, len(b))}
	v, ok := s.str()
	if !ok || !s.end() {
		return "", false
	}
	return string(v), true
}

// Fields calls fn with each key of the JSON object b (unescaped) and the text of its value, in
// order; both alias b or memory of Fields' own. It declines (false) what the scanner declines:
// invalid JSON, invalid UTF-8 or lone surrogate escapes in a string, nesting deeper than maxDepth.
func Fields(b []byte, fn func(key, value []byte)) bool {
	s := scanner{b: b}
	ok := s.object(func(key []byte) bool {
		s.ws()
		start := s.i
		if !s.skip(1) {
			return false
		}
		fn(key, b[start:s.i])
		return true
	})
	s.ws()
	return ok && s.end()
}
