package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/infergate/infergate-go/internal/partialjson"
	"github.com/infergate/infergate-go/internal/schema"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
	// maxCandidates bounds the places in a text tried as the start of its value, so that prose
	// full of braces costs no more than that many passes.
	maxCandidates = 64
)

// textKinds are the JSON values a schema admits at its root, which are the ones looked for in text.
type textKinds struct {
	objects, arrays, strings, numbers, bools, nulls bool
}

// kindsOf reads the kinds from a schema's type; a schema without one (any value) admits them all.
func kindsOf(s *jsonschema.Schema) textKinds {
	var types []string
	if s != nil {
		types = schema.TypesOf(s)
	}
	if len(types) == 0 {
		return textKinds{true, true, true, true, true, true}
	}
	return textKinds{objects: slices.Contains(types, "object"), arrays: slices.Contains(types, "array"),
		strings: slices.Contains(types, "string"), bools: slices.Contains(types, "boolean"),
		nulls:   slices.Contains(types, "null"),
		numbers: slices.Contains(types, "number") || slices.Contains(types, "integer")}
}

// scalars reports whether a string, number, boolean or null is admitted.
func (k textKinds) scalars() bool { return k.strings || k.numbers || k.bools || k.nulls }

// starts reports whether a value beginning with c is of an admitted kind.
func (k textKinds) starts(c byte) bool {
	switch {
	case c == '{':
		return k.objects
	case c == '[':
		return k.arrays
	case c == '"':
		return k.strings
	case c == '-' || c >= '0' && c <= '9':
		return k.numbers
	case c == 't' || c == 'f':
		return k.bools
	case c == 'n':
		return k.nulls
	}
	return false
}

// jsonFinder finds where a value may start in a text that grows: where the text starts, past
// <think>...</think> blocks and spaces, when a value of an admitted kind starts there; then at
// every opening bracket of an admitted container outside think blocks. It resumes where it
// stopped, so a growing text is scanned once.
type jsonFinder struct {
	kinds   textKinds
	openers string // the brackets a value may start with, and '<' for think blocks
	pos     int
	inThink bool
	begun   bool // past the text's first value, or what stands in its place
}

func newJSONFinder(s *jsonschema.Schema) jsonFinder {
	k := kindsOf(s)
	openers := "<"
	if k.objects {
		openers += "{"
	}
	if k.arrays {
		openers += "["
	}
	return jsonFinder{kinds: k, openers: openers}
}

// next returns the next candidate start in text, or false when text has none yet.
func (f *jsonFinder) next(text []byte) (int, bool) {
	for f.pos < len(text) {
		if f.inThink {
			end := bytes.Index(text[f.pos:], []byte(thinkClose))
			if end < 0 {
				f.pos = max(f.pos, len(text)-len(thinkClose)+1) // a closing tag may be cut at the end
				return 0, false
			}
			f.pos, f.inThink = f.pos+end+len(thinkClose), false
			continue
		}
		if !f.begun {
			for f.pos < len(text) && isSpace(text[f.pos]) {
				f.pos++
			}
			if f.pos == len(text) {
				return 0, false
			}
			if rest := text[f.pos:]; rest[0] != '<' || !bytes.HasPrefix([]byte(thinkOpen), rest[:min(len(rest), len(thinkOpen))]) {
				f.begun = true
				if f.kinds.starts(rest[0]) {
					return f.pos, true
				}
			}
		}
		i := bytes.IndexAny(text[f.pos:], f.openers)
		if i < 0 {
			f.pos = len(text)
			return 0, false
		}
		f.pos += i
		rest := text[f.pos:]
		switch {
		case rest[0] != '<':
			return f.pos, true
		case bytes.HasPrefix(rest, []byte(thinkOpen)):
			f.pos, f.inThink = f.pos+len(thinkOpen), true
		case len(rest) < len(thinkOpen) && bytes.HasPrefix([]byte(thinkOpen), rest):
			return 0, false // perhaps a think tag, cut at the end
		default:
			f.pos++
			f.begun = true
		}
	}
	return 0, false
}

// skip moves past a start that did not hold a value.
func (f *jsonFinder) skip(start int) { f.pos, f.begun = start+1, true }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// FirstJSON returns the value in an answer's text, the first of:
//
//   - the value the text starts with, past <think> blocks and spaces, when it is of a kind the
//     schema admits (whatever follows it);
//   - the first complete object or array in the text, outside think blocks, when the schema admits
//     one (past prose and Markdown fences);
//   - for a schema that admits a string, number, boolean or null: the content of the first
//     Markdown fence that is such a value, else the only number or double-quoted string in the
//     text (true, false and null count only at the start or fenced: prose uses them as words).
//
// The error says why there is none. A number at the very end completes with the text.
func FirstJSON(text string, s *jsonschema.Schema) (json.RawMessage, error) {
	b := []byte(text)
	f := newJSONFinder(s)
	var first error
	for range maxCandidates {
		start, ok := f.next(b)
		if !ok {
			break
		}
		p := partialjson.NewPrefix(partialjson.Discard)
		err := p.Write(b[start:])
		if err == nil && !p.Done() {
			err = p.Close() // a number at the end of the text ends with it
		}
		if err == nil {
			return b[start : start+p.Offset()], nil
		}
		if first == nil {
			first = err
		}
		f.skip(start)
	}
	if f.kinds.scalars() {
		raw, err := scalarInProse(b, f.kinds)
		if err == nil || first == nil {
			return raw, err
		}
	}
	if first != nil {
		return nil, fmt.Errorf("%w: %w", errNoJSON, first)
	}
	return nil, errNoJSON
}

// errNoJSON is an answer's text without a JSON value in it.
var errNoJSON = errors.New("the answer holds no JSON value")

// TextValue fills a value from the JSON inside a streamed text, as FirstJSON would find it.
type TextValue struct {
	schema *jsonschema.Schema
	finder jsonFinder
	text   []byte
	dec    *partialjson.Decoder
	root   reflect.Value
	start  int // of the candidate dec reads
	tries  int
}

// NewTextValue returns the TextValue that fills root (settable) with the value of schema s found
// in a text.
func NewTextValue(root reflect.Value, s *jsonschema.Schema) *TextValue {
	return &TextValue{schema: s, finder: newJSONFinder(s), root: root}
}

// Write adds a piece of the text; it reports whether the value shows something new.
func (v *TextValue) Write(piece string) bool {
	v.text = append(v.text, piece...)
	if v.dec != nil {
		if v.dec.Done() {
			return false
		}
		changed, err := v.dec.Write([]byte(piece))
		if err == nil {
			return changed
		}
		v.dec = nil
		v.finder.skip(v.start)
	}
	for v.tries < maxCandidates {
		start, ok := v.finder.next(v.text)
		if !ok {
			return false
		}
		v.tries, v.start = v.tries+1, start
		v.root.SetZero()
		v.dec = partialjson.NewDecoder(v.root)
		changed, err := v.dec.Write(v.text[start:])
		if err == nil {
			return changed
		}
		v.dec = nil
		v.finder.skip(start)
	}
	return false
}

// scalarInProse finds a string, number, boolean or null of an admitted kind in a text that does not
// start with one: the content of the first Markdown fence that is one, else the only number or
// double-quoted string outside <think> blocks. Several are refused, not guessed between.
func scalarInProse(text []byte, k textKinds) (json.RawMessage, error) {
	text = withoutThinking(text)
	for rest := text; ; {
		_, after, ok := bytes.Cut(rest, []byte("```"))
		if !ok {
			break
		}
		body, tail, closed := bytes.Cut(after, []byte("```"))
		if !closed {
			break
		}
		if i := bytes.IndexByte(body, '\n'); i >= 0 && !bytes.ContainsAny(body[:i], `"[{`) {
			body = body[i+1:] // the fence's info string ("json")
		}
		if v := bytes.TrimSpace(body); len(v) > 0 && k.starts(v[0]) && json.Valid(v) {
			return v, nil
		}
		rest = tail
	}
	var found []json.RawMessage
	for i := 0; i < len(text) && len(found) < maxCandidates; i++ {
		c := text[i]
		if c == '"' {
			end := stringEnd(text, i)
			if end < 0 {
				continue
			}
			if k.strings {
				found = append(found, text[i:end])
			}
			i = end - 1
			continue
		}
		if c != '-' && !isDigit(c) {
			continue
		}
		if n := numberAt(text, i); n > 0 {
			if k.numbers {
				found = append(found, text[i:i+n])
			}
			i += n - 1
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return nil, fmt.Errorf("%w alone: it holds %d values of the kind asked for (%.40s, %.40s, ...), not one", errNoJSON, len(found), found[0], found[1])
	}
	return nil, errNoJSON
}

// withoutThinking returns text without its <think>...</think> blocks (an unclosed one runs to the end).
func withoutThinking(text []byte) []byte {
	if !bytes.Contains(text, []byte(thinkOpen)) {
		return text
	}
	var out []byte
	for {
		before, after, ok := bytes.Cut(text, []byte(thinkOpen))
		out = append(out, before...)
		if !ok {
			return out
		}
		_, text, ok = bytes.Cut(after, []byte(thinkClose))
		if !ok {
			return out
		}
		out = append(out, ' ')
	}
}

// stringEnd returns the end of the JSON string that starts at text[i], -1 when none does.
func stringEnd(text []byte, i int) int {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '\n':
			return -1 // a quotation mark of prose, not a string
		case '"':
			if json.Valid(text[i : j+1]) {
				return j + 1
			}
			return -1
		}
	}
	return -1
}

var proseNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`)

// numberAt returns the length of the JSON number that stands as a word at text[i] (not part of a
// name like "v2", a version like "1.2.3" or a range's second half), 0 when none does.
func numberAt(text []byte, i int) int {
	if i > 0 && isWordByte(text[i-1]) || i > 0 && (text[i-1] == '.' || text[i-1] == '-') {
		return 0
	}
	n := len(proseNumber.Find(text[i:]))
	if n == 0 {
		return 0
	}
	if end := i + n; end < len(text) && (isWordByte(text[end]) || text[end] == '.' && end+1 < len(text) && isDigit(text[end+1])) {
		return 0
	}
	return n
}

func isWordByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Finish ends the text: it shows the value FirstJSON finds in it, when the candidate followed so
// far does not hold it complete (a number ends only with the text; a value in a fence or in prose
// is known only at the end). It reports whether the value shows something new.
func (v *TextValue) Finish() bool {
	if v.dec != nil {
		if v.dec.Done() {
			return false
		}
		if changed, err := v.dec.Close(); err == nil {
			return changed
		}
	}
	raw, err := FirstJSON(string(v.text), v.schema)
	if err != nil {
		return false
	}
	fresh := reflect.New(v.root.Type())
	if json.Unmarshal(raw, fresh.Interface()) != nil {
		return false
	}
	v.root.Set(fresh.Elem())
	return true
}
