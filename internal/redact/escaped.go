package redact

import (
	"bytes"
	"cmp"
	"html"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// escapeLeads are the bytes that start an escape a server may write a credential with: a JSON
// string escape (\u0073), an HTML character reference (&#115;, &#x73;, &lowbar;) or
// percent-encoding (%73).
const escapeLeads = `\&%`

// escapeDepth is how many layers of escapes are undone, for a provider's JSON error quoted inside
// the gateway's JSON error, say.
const escapeDepth = 3

// escapes is a set of the kinds of escape undone.
type escapes uint8

const (
	jsonEscapes    escapes = 1 << iota // \u0073, \/
	htmlReferences                     // &#115;, &#x73;, &lowbar;
	percentEscapes                     // %73
	allEscapes     = jsonEscapes | htmlReferences | percentEscapes
)

// blankEscaped blanks out every run of text that spells a credential once its escapes are undone,
// whichever escapes it uses, mixed as they may be and up to escapeDepth layers deep. Each kind is
// also undone alone, as a reader of that kind would: "%4a&#98;c" is "Jbc" to one that undoes every
// kind, "%4abc" to an HTML reader. The escaped run is replaced whole, so that no part of the
// credential is left; text around it is unchanged.
//
// The text is read in overlapping windows, so that the bookkeeping stays small for a large body: an
// escaped credential shorter than the overlap lies whole inside one window.
func (s Set) blankEscaped(text []byte) []byte {
	window, overlap := escapeWindow(s.longest)
	var spans [][2]int
	for from := 0; ; from += window - overlap {
		to := min(from+window, len(text))
		spans = s.appendEscapedSpans(spans, text[from:to], from)
		if to == len(text) {
			break
		}
	}
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	out := make([]byte, 0, len(text))
	done := 0
	for _, sp := range spans {
		if sp[1] <= done {
			continue // inside a run already blanked out
		}
		if sp[0] < done {
			sp[0] = done
		} else {
			out = append(out, text[done:sp[0]]...)
		}
		out = append(out, s.replacement...)
		done = sp[1]
	}
	return append(out, text[done:]...)
}

// escapeWindow is the size of the windows blankEscaped reads and how much they overlap, for
// credentials of at most longest bytes: room for each byte to be spelled with 256 bytes of escapes.
func escapeWindow(longest int) (window, overlap int) {
	overlap = 256 * longest
	return max(64<<10, 4*overlap), overlap
}

// appendEscapedSpans appends the runs of text, at offset in the whole, that spell a credential
// once escapes are undone. Undoing them without keeping track of where each byte came from is
// cheap, and a credential is rarely there, so text is read that way first.
func (s Set) appendEscapedSpans(spans [][2]int, text []byte, offset int) [][2]int {
	for _, kinds := range []escapes{allEscapes, jsonEscapes, htmlReferences, percentEscapes} {
		if !s.spellsEscaped(text, kinds) {
			continue
		}
		cur := unescaped{text: text}
		for range escapeDepth {
			next, changed := cur.unescape(kinds, true)
			if !changed {
				break
			}
			cur = next
			spans = s.appendSecretSpans(spans, cur, offset)
		}
	}
	return spans
}

// spellsEscaped reports whether text spells a credential once escapes of the kinds given are
// undone, a layer or more.
func (s Set) spellsEscaped(text []byte, kinds escapes) bool {
	cur := unescaped{text: text}
	for range escapeDepth {
		next, changed := cur.unescape(kinds, false)
		if !changed {
			return false
		}
		for _, f := range s.forms {
			if bytes.Contains(next.text, []byte(*f)) {
				return true
			}
		}
		cur = next
	}
	return false
}

// appendSecretSpans appends the original runs, at offset, of every credential u spells.
func (s Set) appendSecretSpans(spans [][2]int, u unescaped, offset int) [][2]int {
	for _, form := range s.forms {
		f := []byte(*form)
		for at := 0; ; {
			i := bytes.Index(u.text[at:], f)
			if i < 0 {
				break
			}
			i += at
			spans = append(spans, [2]int{offset + u.start(i), offset + u.end(i+len(f)-1)})
			at = i + len(f)
		}
	}
	return spans
}

// unescaped is text with one more layer of escapes undone. Each of its bytes may remember the run
// of the original text it was decoded from, so that a credential found in it can be blanked out
// of the original.
type unescaped struct {
	text   []byte
	starts []int // starts[i], ends[i]: the original run byte i came from; nil when not tracked
	ends   []int
}

func (u unescaped) start(i int) int {
	if u.starts == nil {
		return i
	}
	return u.starts[i]
}

func (u unescaped) end(i int) int {
	if u.ends == nil {
		return i + 1
	}
	return u.ends[i]
}

// unescape undoes one layer of escapes of the kinds given; changed is false when there was none.
// With track, the result remembers where each of its bytes came from.
func (u unescaped) unescape(kinds escapes, track bool) (out unescaped, changed bool) {
	leads := kinds.leads()
	if !bytes.ContainsAny(u.text, leads) {
		return u, false
	}
	out.text = make([]byte, 0, len(u.text))
	if track {
		out.starts, out.ends = make([]int, 0, len(u.text)), make([]int, 0, len(u.text))
	}
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(u.text); {
		if !track { // copy the run up to the next escape at once
			j := bytes.IndexAny(u.text[i:], leads)
			if j < 0 {
				out.text = append(out.text, u.text[i:]...)
				break
			}
			out.text = append(out.text, u.text[i:i+j]...)
			i += j
		}
		decoded, n := unescapeAt(u.text[i:], kinds, buf[:0])
		if n == 0 {
			decoded, n = u.text[i:i+1], 1
		} else {
			changed = true
		}
		out.text = append(out.text, decoded...)
		if track {
			start, end := u.start(i), u.end(i+n-1)
			for range decoded {
				out.starts = append(out.starts, start)
				out.ends = append(out.ends, end)
			}
		}
		i += n
	}
	return out, changed
}

// leads are the bytes that start an escape of the kinds.
func (kinds escapes) leads() string {
	switch kinds {
	case jsonEscapes:
		return `\`
	case htmlReferences:
		return "&"
	case percentEscapes:
		return "%"
	}
	return escapeLeads
}

// unescapeAt decodes the escape of one of the kinds given that text starts with, appending it to
// buf; n is the escape's length, 0 when text starts with none.
func unescapeAt(text []byte, kinds escapes, buf []byte) (decoded []byte, n int) {
	switch {
	case text[0] == '\\' && kinds&jsonEscapes != 0:
		if len(text) < 2 {
			return nil, 0
		}
		if i := strings.IndexByte(`"\/bfnrt`, text[1]); i >= 0 {
			return append(buf, "\"\\/\b\f\n\r\t"[i]), 2
		}
		if text[1] != 'u' || len(text) < 6 {
			return nil, 0
		}
		if r, ok := parseDigits(text[2:6], 16); ok {
			return utf8.AppendRune(buf, rune(r)), 6
		}
	case text[0] == '%' && kinds&percentEscapes != 0:
		if len(text) < 3 {
			return nil, 0
		}
		if b, ok := parseDigits(text[1:3], 16); ok {
			return append(buf, byte(b)), 3
		}
	case text[0] == '&' && kinds&htmlReferences != 0:
		return characterReference(text, buf)
	}
	return nil, 0
}

// characterReference decodes the HTML character reference text starts with, as html.UnescapeString
// reads it, the reference for what a reader decodes: numeric (&#115; or &#x73;, every digit read,
// leading zeros included, the semicolon optional) or named (&lowbar;, and &amp without its
// semicolon).
func characterReference(text, buf []byte) (decoded []byte, n int) {
	if len(text) > 2 && text[1] == '#' {
		return numericReference(text, buf)
	}
	semi := bytes.IndexByte(text[:min(len(text), 34)], ';')
	if semi < 2 {
		return legacyReference(text, buf)
	}
	switch name := text[1:semi]; string(name) { // the common ones without an allocation
	case "amp":
		return append(buf, '&'), semi + 1
	case "lt":
		return append(buf, '<'), semi + 1
	case "gt":
		return append(buf, '>'), semi + 1
	case "quot":
		return append(buf, '"'), semi + 1
	}
	ref := string(text[:semi+1])
	if r := html.UnescapeString(ref); r != ref {
		return append(buf, r...), semi + 1
	}
	return legacyReference(text, buf)
}

// numericReference decodes &#...; reading its digits as html.UnescapeString does: all of them, the
// value wrapping as a 32-bit rune; a value that is no character (0, a surrogate, past U+10FFFF) is
// U+FFFD, and one of the C1 controls the Windows-1252 character HTML reads it as. Every byte of the
// reference is read once, however many zeros pad it.
func numericReference(text, buf []byte) (decoded []byte, n int) {
	i, base := 2, 10
	if text[2]|0x20 == 'x' {
		i, base = 3, 16
	}
	first := i
	var r rune
	for ; i < len(text); i++ {
		d := digitValue(text[i], base)
		if d < 0 {
			break
		}
		r = r*rune(base) + rune(d)
	}
	if i == first {
		return nil, 0
	}
	if i < len(text) && text[i] == ';' {
		i++
	}
	switch {
	case 0x80 <= r && r <= 0x9f:
		return append(buf, html.UnescapeString("&#"+strconv.Itoa(int(r))+";")...), i
	case r <= 0 || 0xd800 <= r && r <= 0xdfff || r > utf8.MaxRune:
		r = utf8.RuneError
	}
	return utf8.AppendRune(buf, r), i
}

// legacyReference decodes &amp written without its semicolon, which HTML allows (html.UnescapeString
// reads "&amp#115;" as "&#115;"). Of the legacy names HTML reads without a semicolon, it is the one
// that matters here: the others (&lt, &copy, &eacute) decode to characters no credential holds and
// no escape starts with, so leaving them be changes nothing found.
func legacyReference(text, buf []byte) (decoded []byte, n int) {
	if len(text) >= 4 && (string(text[1:4]) == "amp" || string(text[1:4]) == "AMP") {
		return append(buf, '&'), 4
	}
	return nil, 0
}

// parseDigits reads digits, all of them, in base 10 or 16; ok is false when there are none or one
// is not a digit.
func parseDigits(digits []byte, base int) (v uint32, ok bool) {
	if len(digits) == 0 {
		return 0, false
	}
	for _, b := range digits {
		d := digitValue(b, base)
		if d < 0 {
			return 0, false
		}
		v = v*uint32(base) + uint32(d)
	}
	return v, true
}

// digitValue is b's value as a digit of base 10 or 16, -1 when it is not one.
func digitValue(b byte, base int) int {
	switch {
	case '0' <= b && b <= '9':
		return int(b - '0')
	case base == 16 && 'a' <= b|0x20 && b|0x20 <= 'f':
		return int(b|0x20-'a') + 10
	}
	return -1
}
