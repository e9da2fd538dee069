package partialjson

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// The values the builder leaves to encoding/json: those that decode themselves, ",string" fields
// and values met again, decoded from their own text once complete.

// decodeOpaque lets encoding/json decode a complete value that decodes itself, or a value met
// again, into what the earlier one left; then the text it held may go.
func (b *builder) decodeOpaque(f *frame, text []byte) {
	if f.held {
		b.p.release() // text stays valid until the next Write
	}
	if f.base.IsValid() {
		f.v.Set(f.base)
	}
	if f.quoted {
		b.decodeQuoted(text, f.v)
		return
	}
	_ = b.unmarshal(text, f.v.Addr().Interface()) // a mismatch is for the final decode to report
}

// unmarshal lets encoding/json decode text into v. The value's own methods (UnmarshalJSON,
// UnmarshalText) run here and only here: one that panics fails the decoder (failed) rather than
// the caller.
func (b *builder) unmarshal(text []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			b.failed = fmt.Errorf("partialjson: filling %s: %v", b.root.Type(), r)
			err = b.failed
		}
	}()
	return json.Unmarshal(text, v)
}

// decodeQuoted decodes the text of a ",string" field as encoding/json does, through a struct of one
// field with the same option, so that it accepts exactly what encoding/json accepts ("01" for an
// int, say). A mismatch leaves v as it is, for the final decode to report.
func (b *builder) decodeQuoted(text []byte, v reflect.Value) {
	holder := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "V", Type: v.Type(), Tag: `json:"v,string"`}}))
	doc := make([]byte, 0, len(text)+len(`{"v":}`))
	doc = append(append(append(doc, `{"v":`...), text...), '}')
	if b.unmarshal(doc, holder.Interface()) == nil {
		v.Set(holder.Elem().Field(0))
	}
}
