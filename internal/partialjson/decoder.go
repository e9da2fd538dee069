package partialjson

import "reflect"

// Decoder fills a Go value from JSON text that arrives in fragments, as described on builder: after
// each fragment the value shows what the text so far settles, and once the text is complete it
// holds what encoding/json would decode from it (for the types encoding/json decodes without
// error).
type Decoder struct {
	p   *Parser
	b   *builder
	err error
}

// NewDecoder returns a decoder that fills root, which must be settable (reflect.ValueOf(&v).Elem())
// and hold its type's zero value. Like NewPrefix's parser, it stops reading at the end of the value.
func NewDecoder(root reflect.Value) *Decoder {
	b := &builder{root: root, rootInfo: infoOf(root.Type())}
	b.p = NewPrefix(b)
	return &Decoder{p: b.p, b: b}
}

// Write parses the next fragment; changed reports whether the value shows something new. After an
// error the decoder stays failed.
func (d *Decoder) Write(fragment []byte) (changed bool, err error) {
	if d.err != nil {
		return false, d.err
	}
	return d.after(d.p.Write(fragment))
}

// WriteString is Write for a fragment held in a string, which it reads without a copy of its own.
func (d *Decoder) WriteString(fragment string) (changed bool, err error) {
	if d.err != nil {
		return false, d.err
	}
	return d.after(d.p.WriteString(fragment))
}

// Close ends the text; it fails when the value is incomplete.
func (d *Decoder) Close() (changed bool, err error) {
	if d.err != nil {
		return false, d.err
	}
	return d.after(d.p.Close())
}

// after takes the outcome of the parser's step: the parser's error or the builder's, or whether
// the value changed.
func (d *Decoder) after(err error) (changed bool, _ error) {
	if err == nil {
		err = d.b.failed
	}
	if err != nil {
		d.err = err // the only write of a field that the GC's barrier watches, and only once
		return false, err
	}
	changed, d.b.changed = d.b.changed, false
	return changed, nil
}

// Done reports whether the value is complete.
func (d *Decoder) Done() bool { return d.p.Done() }

// Offset returns the number of bytes read so far; once Done, where the value ends.
func (d *Decoder) Offset() int { return d.p.Offset() }
