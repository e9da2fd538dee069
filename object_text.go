package infergate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/infergate/infergate-go/internal/partialjson"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
	// maxCandidates bounds the places in a text tried as the start of its value, so that prose
	// full of braces costs no more than that many passes.
	maxCandidates = 64
)

// jsonFinder finds where a value may start in a text that grows: at the next opening bracket
// outside <think>...</think> blocks. It resumes where it stopped, so a growing text is scanned once.
type jsonFinder struct {
	openers string // the brackets a value may start with, and '<' for think blocks
	pos     int
	inThink bool
}

func newJSONFinder(t reflect.Type) jsonFinder {
	if k := deref(t).Kind(); k == reflect.Struct || k == reflect.Map {
		return jsonFinder{openers: "{<"}
	}
	return jsonFinder{openers: "{[<"}
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
		}
	}
	return 0, false
}

// skip moves past a start that did not hold a value.
func (f *jsonFinder) skip(start int) { f.pos = start + 1 }

// firstJSON returns the first complete JSON value in an answer's text, past <think> blocks,
// Markdown fences and prose; the error says why there is none.
func firstJSON(text string, t reflect.Type) (json.RawMessage, error) {
	b := []byte(text)
	f := newJSONFinder(t)
	var first error
	for range maxCandidates {
		start, ok := f.next(b)
		if !ok {
			break
		}
		p := partialjson.NewPrefix(partialjson.Discard)
		err := p.Write(b[start:])
		if err == nil && p.Done() {
			return b[start : start+p.Offset()], nil
		}
		if first == nil {
			first = err
			if err == nil {
				first = p.Close()
			}
		}
		f.skip(start)
	}
	if first != nil {
		return nil, fmt.Errorf("%w: %w", errNoJSON, first)
	}
	return nil, errNoJSON
}

// textValue fills a value from the JSON inside a streamed text, as firstJSON would find it.
type textValue struct {
	finder jsonFinder
	text   []byte
	dec    *partialjson.Decoder
	root   reflect.Value
	start  int // of the candidate dec reads
	tries  int
}

// write adds a piece of the text; it reports whether the value shows something new.
func (v *textValue) write(piece string) bool {
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
