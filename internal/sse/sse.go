// Package sse decodes server-sent event streams as LLM gateways really send them: LF, CRLF or CR line
// endings, comments, "data:" with or without a space, multi-line data, a last event without its blank
// line, and stray lines that are not SSE at all (a raw JSON error object, say), which are reported
// rather than dropped.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line the decoder accepts unless told otherwise. Generous on purpose:
// a single chunk can carry a base64 image or a long tool-call argument.
const DefaultMaxLine = 64 << 20

// ErrLineTooLong is returned when a line, or the joined data lines of one event, exceed the decoder's
// limit.
var ErrLineTooLong = errors.New("infergate: stream line exceeds the size limit")

// Kind tells what an Event carries.
type Kind uint8

const (
	// Data is a dispatched event: the joined data lines.
	Data Kind = iota
	// Stray is a line that is not an SSE field, such as a raw JSON object without "data:".
	Stray
)

// Event is one decoded event. Its Data and Value alias the decoder's buffer: they are valid until
// the next call to Next.
type Event struct {
	Kind Kind
	// Name is the event: field, when the server sent one. For a Stray line that reads as an unknown
	// field ("error: {...}", as llama.cpp and llama-box write an error), it is that field's name.
	Name string
	Data []byte // the joined data lines; for a Stray line, the whole line
	// Value is what follows a Stray field's colon (and one space); nil when the line is no field.
	Value []byte
}

// Decoder reads events from a stream.
type Decoder struct {
	r       io.Reader
	buf     []byte
	start   int // first unread byte in buf
	end     int // end of valid bytes in buf
	maxLine int
	skipLF  bool // the previous line ended in CR; a following LF belongs to it
	lfFree  int  // d.buf[:lfFree] is known to hold no LF
	crFree  int  // d.buf[:crFree] is known to hold no CR
	eof     bool
	err     error

	data    []byte // the event's data so far: owned, or one line still in buf when aliased
	owned   []byte // the memory data is joined in, kept from one event to the next
	aliased bool
	hasData bool
	name    string
	stray   []byte
}

// NewDecoder returns a decoder reading r, refusing lines longer than maxLine bytes (DefaultMaxLine
// when maxLine <= 0).
func NewDecoder(r io.Reader, maxLine int) *Decoder {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Decoder{r: r, buf: make([]byte, 4096), maxLine: maxLine}
}

// Next returns the next event. At the end of the stream it returns io.EOF, after dispatching a last
// event that had no trailing blank line. Any other error is the reader's, or ErrLineTooLong.
func (d *Decoder) Next() (Event, error) {
	if ev, ok := d.usual(); ok {
		return ev, nil
	}
	for {
		line, err := d.line()
		if err != nil {
			if err == io.EOF && d.hasData {
				return d.dispatch(), nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if d.hasData {
				return d.dispatch(), nil
			}
			d.name = ""
			continue
		}
		if ev, ok := d.field(line); ok {
			return ev, nil
		}
		// Many short data lines without a blank line would otherwise grow one event without bound.
		if len(d.data) > d.maxLine {
			return Event{}, d.tooLong()
		}
		// The usual event, one line and its blank line ("\n\n"), ends here without a second pass.
		if d.hasData && !d.skipLF && d.start < d.end && d.buf[d.start] == '\n' {
			d.start++
			return d.dispatch(), nil
		}
	}
}

// usual reads the usual event, one "data:" line ended by LF and the blank line after it, when the
// buffer holds both and no line of an event came before: the event the loop in Next reads, in one
// step. It reports false, having consumed nothing, for anything else.
func (d *Decoder) usual() (Event, bool) {
	start := d.start
	if d.hasData || d.skipLF || d.end-start < 7 || string(d.buf[start:start+5]) != "data:" {
		return Event{}, false
	}
	i := d.terminator(d.buf[start:d.end], start)
	lineEnd := start + i
	if i < 0 || i > d.maxLine || lineEnd+1 >= d.end || d.buf[lineEnd] != '\n' || d.buf[lineEnd+1] != '\n' {
		return Event{}, false
	}
	value := d.buf[start+5 : lineEnd]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	d.start = lineEnd + 2
	ev := Event{Kind: Data, Name: d.name, Data: value}
	if d.name != "" { // most events have none: no store, which costs a write barrier while the collector marks
		d.name = ""
	}
	return ev, true
}

func (d *Decoder) tooLong() error { return fmt.Errorf("%w (%d bytes)", ErrLineTooLong, d.maxLine) }

// field applies one non-empty line; it returns an event only for a stray line.
func (d *Decoder) field(line []byte) (Event, bool) {
	if line[0] == ':' {
		return Event{}, false
	}
	if len(line) > 4 && line[4] == ':' && string(line[:4]) == "data" { // the usual line, without a search
		value := line[5:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		d.addData(value)
		return Event{}, false
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		d.addData(value)
	case "event":
		d.name = string(value)
	case "id", "retry":
	default:
		d.stray = append(d.stray[:0], line...)
		ev := Event{Kind: Stray, Data: d.stray}
		if len(name) < len(line) && isFieldName(name) {
			ev.Name, ev.Value = string(name), d.stray[len(line)-len(value):]
		}
		return ev, true
	}
	return Event{}, false
}

// addData adds a data line's value to the event.
func (d *Decoder) addData(value []byte) {
	if !d.hasData {
		// The usual event is one data line: hand it out from buf, without a copy, unless buf must
		// move before the event ends.
		d.data, d.aliased, d.hasData = value, true, true
		return
	}
	d.own()
	d.data = append(append(d.data, '\n'), value...)
	d.owned = d.data
}

// isFieldName tells a name that reads as a field's (letters, digits, '_' and '-') from the start of
// a line that is something else, such as a JSON object's first key.
func isFieldName(name []byte) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return len(name) > 0
}

func (d *Decoder) dispatch() Event {
	ev := Event{Kind: Data, Name: d.name, Data: d.data}
	d.data = d.owned[:0]
	d.aliased, d.hasData = false, false
	d.name = ""
	return ev
}

// line returns the next line without its terminator. The slice aliases d.buf.
func (d *Decoder) line() ([]byte, error) {
	scanned := 0
	for {
		if d.skipLF && d.start < d.end {
			if d.buf[d.start] == '\n' {
				d.start++
			}
			d.skipLF = false
		}
		window := d.buf[d.start+scanned : d.end]
		if i := d.terminator(window, d.start+scanned); i >= 0 {
			lineEnd := d.start + scanned + i
			line := d.buf[d.start:lineEnd]
			if len(line) > d.maxLine {
				return nil, d.tooLong()
			}
			d.skipLF = d.buf[lineEnd] == '\r'
			d.start = lineEnd + 1
			return line, nil
		}
		scanned = d.end - d.start
		if scanned > d.maxLine {
			return nil, d.tooLong()
		}
		if d.eof {
			if scanned == 0 {
				return nil, d.err
			}
			line := d.buf[d.start:d.end]
			d.start = d.end
			return line, nil
		}
		d.fill()
	}
}

// terminator returns the index in window (which starts at offset base of d.buf and runs to d.end)
// of the first CR or LF, or -1. Two single-byte searches are vectorised where bytes.IndexAny is
// not. lfFree and crFree remember how far the buffer is known to hold neither, so that no byte is
// searched twice for the same one: a stream without CR is searched for it once per read, not once
// per line, and a CR-only stream is searched for LF once.
func (d *Decoder) terminator(window []byte, base int) int {
	lf := -1
	if from := max(d.lfFree-base, 0); from < len(window) {
		if i := bytes.IndexByte(window[from:], '\n'); i >= 0 {
			lf = from + i
		}
	}
	if lf < 0 {
		d.lfFree = base + len(window)
	}
	if end := base + lf; lf >= 0 && end <= d.crFree {
		return lf
	}
	from := max(d.crFree-base, 0)
	i := bytes.IndexByte(window[from:], '\r')
	if i < 0 {
		d.crFree = base + len(window)
		return lf
	}
	cr := from + i
	d.crFree = base + cr
	if lf >= 0 && lf < cr {
		return lf
	}
	return cr
}

// own copies data that still aliases buf into owned memory.
func (d *Decoder) own() {
	if d.aliased {
		d.owned = append(d.owned[:0], d.data...)
		d.data, d.aliased = d.owned, false
	}
}

// fill reads more bytes, compacting or growing the buffer first.
func (d *Decoder) fill() {
	d.own()
	if d.start > 0 {
		n := copy(d.buf, d.buf[d.start:d.end])
		d.lfFree -= d.start
		d.crFree -= d.start
		d.start, d.end = 0, n
	}
	if d.end == len(d.buf) {
		size := 2 * len(d.buf)
		if limit := d.maxLine + 2; size > limit {
			size = limit
		}
		if size <= len(d.buf) {
			size = len(d.buf) + 1
		}
		grown := make([]byte, size)
		copy(grown, d.buf[:d.end])
		d.buf = grown
	}
	n, err := d.r.Read(d.buf[d.end:])
	d.end += n
	if err != nil {
		d.eof = true
		d.err = err
	}
}
