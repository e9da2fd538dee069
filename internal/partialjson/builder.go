package partialjson

import (
	"reflect"
	"strconv"
	"strings"
)

// builder fills a Go value from a Parser's events as they come, the way encoding/json would fill
// it from the whole text, showing only what the text so far settles:
//
//   - a struct field appears once its value is complete, except that a string grows as its text
//     arrives and an object or array in progress shows what it holds so far;
//   - a slice or map gains an element once the element is complete;
//   - a value that decodes itself (json.Unmarshaler, encoding.TextUnmarshaler, time.Time, []byte,
//     interfaces, ",string" fields) is decoded by encoding/json once complete, from its own text.
//
// A key met again (the last one wins, as in encoding/json) starts its value over, whatever its
// kind: the value shows only what its new text settles. encoding/json, though, decodes the new
// value into what the earlier one left (objects keep the fields the new text does not name, arrays
// and slices decode their elements into the earlier elements), so once the new value is complete,
// encoding/json decodes its text into the earlier value (replay), and the value is encoding/json's.
// Until then, a slice element that has an earlier element to merge into is decoded by encoding/json
// into it when complete, so that an element shown is the one the final value holds.
//
// Every event costs time in proportion to its own text, never to what came before: strings grow
// in an append-only arena and the value's strings view it, so a growing string is not
// copied; a value met again is decoded once more, but a value met again inside it is not replayed
// on its own, so no text is decoded more than twice.
// Values the text does not fit (a string where an int belongs, an unknown key) are left alone;
// encoding/json reports them when the whole text is decoded.
type builder struct {
	p         *Parser
	root      reflect.Value
	rootInfo  *typeInfo
	stack     []frame
	arena     strings.Builder // only written within its capacity, so the strings viewing it never change
	strAt     int             // where the open string starts in arena
	str       *string         // the open string's destination, when it is reached as a *string
	strV      reflect.Value   // else the destination itself, a string kind (the safe twin's way)
	strOn     bool            // the open string has a destination
	strShow   bool            // and it is shown as it grows
	changed   bool
	failed    error  // a method of the value panicked
	new       blocks // where new pointer targets and element slots come from
	replaying bool   // a value met again is open, and will be decoded whole when it completes
	general   bool   // no value takes the plain path (plainTarget), for tests to compare the two
	safe      bool   // general, and no unsafe code either: the safe twin (safe.go), for tests to compare
	// litVal and litBase: the open literal's destination and what an earlier key left there, set
	// only while the literal of a key met again is open.
	litVal, litBase reflect.Value
}

type frameKind uint8

const (
	fStruct frameKind = iota
	fMap
	fSlice
	fArray
	fSkip   // a value with no destination
	fOpaque // a value encoding/json decodes once complete
)

type frame struct {
	kind   frameKind
	v      reflect.Value
	shown  bool          // changes to v are visible in the root value now
	info   *typeInfo     // fStruct: v's; fMap, fSlice, fArray: its elements'
	slot   reflect.Value // fStruct: the field of the pending key; fMap, fSlice: the element being built
	key    reflect.Value // fMap: the pending key
	index  int           // fArray: the next element; fStruct: the field after the last key's
	depth  int           // fSkip, fOpaque: open containers within
	start  int           // fOpaque: where its text starts
	fd     *field        // fStruct: the pending key's field, nil when it names none
	quoted bool          // fStruct: the pending field is ",string"; fOpaque: its value is
	// base is what an earlier value left at this place, which encoding/json decodes this one into;
	// invalid when there was none. slotBase is the pending key's field of it (fStruct).
	base, slotBase reflect.Value
	replay         bool   // decode the text (from start) into base once complete
	held           bool   // fOpaque, replay: the frame holds the parser's text from start
	seen           uint64 // fStruct: the fields (by their place in the plan) whose key was met
	again          bool   // fStruct: the pending key's field was met before
	// addr holds the addresses the plain path reaches values by (see fast.go); own is v's type,
	// and slotInfo the type of the pending field (fStruct).
	addr
	own      reflect.Type
	slotInfo *typeInfo
	// full is the safe twin's fSlice: the slice as the builder has it, with its array's capacity,
	// which the slice shown does not have (see beginSliceSafe).
	full reflect.Value
}

// target is where the value that begins now goes, what its type is, and whether it shows; ok is
// false when it has no destination. A quoted target is a ",string" field.
func (b *builder) target() (dst reflect.Value, ti *typeInfo, shown, quoted, ok bool) {
	if len(b.stack) == 0 {
		return b.root, b.rootInfo, true, false, true
	}
	f := &b.stack[len(b.stack)-1]
	switch f.kind {
	case fStruct:
		if f.fd == nil {
			return reflect.Value{}, nil, false, false, false
		}
		return f.slotValue(f.fd.typ), f.fd.typeInfo(), f.shown, f.quoted, true
	case fMap:
		return f.slot, f.info, false, false, true
	case fSlice:
		f.slot = f.slotValue(f.info.t)
		if prior := b.prior(); prior.IsValid() {
			f.slot.Set(prior) // the element decodes into the earlier one, as in encoding/json
		}
		return f.slot, f.info, false, false, true
	case fArray:
		if f.index < f.v.Len() {
			return f.v.Index(f.index), f.info, f.shown, false, true
		}
	}
	return reflect.Value{}, nil, false, false, false
}

func (b *builder) top() *frame {
	if len(b.stack) == 0 {
		return nil
	}
	return &b.stack[len(b.stack)-1]
}

// passive reports whether the innermost frame only counts nesting (a skipped or opaque value).
func (b *builder) passive() bool {
	f := b.top()
	return f != nil && (f.kind == fSkip || f.kind == fOpaque)
}

// BeginObject implements Handler.
func (b *builder) BeginObject(at int) { b.beginContainer(at, true) }

// BeginArray implements Handler.
func (b *builder) BeginArray(at int) { b.beginContainer(at, false) }

func (b *builder) beginContainer(at int, object bool) {
	if b.plainBegin(object) {
		return
	}
	if b.passive() {
		b.top().depth++
		return
	}
	dst, ti, shown, quoted, ok := b.target()
	if !ok || quoted {
		b.stack = append(b.stack, frame{kind: fSkip, depth: 1})
		return
	}
	var base reflect.Value
	if b.metAgain() {
		_, base = b.again(derefBase(dst), shown)
	}
	if ti.decodes {
		b.stack = append(b.stack, frame{kind: fOpaque, v: b.deref(dst, shown), depth: 1, start: at, base: base, held: b.p.hold(at)})
		return
	}
	prior := b.prior()
	if prior.IsValid() && b.top().kind == fSlice {
		// An element decoded into the earlier one (target put it in the slot), which encoding/json
		// does its own way: it is shown once complete, and then it is what the final value holds.
		b.stack = append(b.stack, frame{kind: fOpaque, v: b.deref(dst, shown), depth: 1, start: at, held: b.p.hold(at)})
		return
	}
	v := b.deref(dst, shown)
	kind := containerKind(ti.kind, object)
	if kind == fSkip {
		b.stack = append(b.stack, frame{kind: fSkip, depth: 1})
		return
	}
	spare, spareInfo := b.spareSlot()
	b.stack = append(b.stack, frame{}) // filled in place: a frame is large
	f := &b.stack[len(b.stack)-1]
	f.kind, f.v, f.shown, f.depth, f.info = kind, v, shown, 1, ti
	if kind == fStruct || kind == fSlice {
		f.own = v.Type()
		b.locate(f, v)
	}
	if prior.IsValid() {
		f.base = derefBase(prior)
	}
	if base.IsValid() {
		f.base = base
		if !b.replaying {
			f.replay, f.start, b.replaying = true, at, true
			f.held = b.p.hold(at)
		}
	}
	if f.kind != fStruct {
		f.info = ti.elemInfo()
	}
	switch f.kind {
	case fMap:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
			b.changed = b.changed || shown
		}
		f.slot = b.slotFor(f.info, spare, spareInfo)
	case fSlice:
		b.beginSlice(f)
	}
}

// metAgain reports whether the value that begins now is a struct's field whose key was met before
// in this object, the only place where something is left to start over (see again).
func (b *builder) metAgain() bool {
	n := len(b.stack)
	return n > 0 && b.stack[n-1].kind == fStruct && b.stack[n-1].again
}

func containerKind(k reflect.Kind, object bool) frameKind {
	switch {
	case object && k == reflect.Struct:
		return fStruct
	case object && k == reflect.Map:
		return fMap
	case !object && k == reflect.Slice:
		return fSlice
	case !object && k == reflect.Array:
		return fArray
	}
	return fSkip
}

// Key implements Handler.
func (b *builder) Key(key []byte) {
	f := b.top()
	switch f.kind {
	case fStruct:
		f.fd = f.info.plan.lookup(key, f.index)
		f.forgetSlot()
		if f.fd != nil {
			f.index = f.fd.pos + 1
			// A struct's fields are zero until their key is met: only a key met before has left
			// something (past the first 64 fields, again looks).
			bit := uint64(1) << (f.fd.pos & 63)
			f.again = f.fd.pos >= 64 || f.seen&bit != 0
			f.seen |= bit
			if f.fd.plain && !f.again && !f.base.IsValid() && b.plainKey(f) {
				return
			}
			f.quoted = f.fd.quoted && f.fd.typeInfo().scalar
			var ok bool
			if f.slot, ok = fieldOf(f.value(), f.fd.index); !ok {
				f.fd = nil
				return
			}
			if f.base.IsValid() {
				f.slotBase = baseField(f.base, f.fd.index)
			}
		}
	case fMap:
		f.key = reflect.ValueOf(string(key)).Convert(f.v.Type().Key())
	}
}

// End implements Handler.
func (b *builder) End(at int) {
	f := b.top()
	if f.kind == fSkip || f.kind == fOpaque {
		if f.depth--; f.depth > 0 {
			return
		}
	}
	b.stack = b.stack[:len(b.stack)-1]
	// f still points at the popped frame, which nothing overwrites before this.
	if f.kind == fOpaque || f.replay {
		b.decodeOpaque(f, b.p.span(f.start, at+1))
	}
	if f.replay {
		b.replaying = false
	}
	b.done()
}

// done records that the value at the current position is complete.
func (b *builder) done() {
	n := len(b.stack)
	if n == 0 {
		b.changed = true
		return
	}
	f := &b.stack[n-1]
	switch f.kind {
	case fStruct:
		f.fd = nil
		f.forgetSlot()
	case fMap:
		if f.key.IsValid() {
			f.v.SetMapIndex(f.key, f.slot)
		}
		f.slot.SetZero()
	case fSlice:
		f.appendSlot()
	case fArray:
		f.index++
	default:
		return
	}
	if f.shown {
		b.changed = true
	}
}

// BeginString implements Handler.
func (b *builder) BeginString(at int) {
	b.strOn = false
	if b.plainString() {
		return
	}
	if b.passive() {
		return
	}
	dst, ti, shown, quoted, ok := b.target()
	if !ok {
		return
	}
	var base reflect.Value // a string replaces the earlier one; base serves the others
	if b.metAgain() {
		_, base = b.again(derefBase(dst), shown)
	}
	if quoted || ti.decodes {
		b.stack = append(b.stack, frame{kind: fOpaque, v: b.deref(dst, shown), start: at, quoted: quoted, base: base, held: b.p.hold(at)})
		return
	}
	if ti.kind != reflect.String {
		return
	}
	f := b.top()
	whole := f != nil && f.kind == fStruct && f.fd.whole
	b.openValue(b.deref(dst, shown), shown && !whole)
}

// openString opens a string whose destination is p; show: it shows as it grows.
func (b *builder) openString(p *string, show bool) {
	b.str = p
	if b.strV.IsValid() {
		b.strV = reflect.Value{}
	}
	b.strOn, b.strShow, b.strAt = true, show, b.arena.Len()
}

// setOpen sets the open string's destination to s.
func (b *builder) setOpen(s string) {
	if b.str != nil {
		*b.str = s
		return
	}
	b.strV.SetString(s)
}

// StringPart implements Handler.
func (b *builder) StringPart(part []byte) {
	if !b.strOn {
		return
	}
	if b.arena.Len()+len(part) > b.arena.Cap() {
		// A new arena that starts with the open string; the strings already made keep the old one
		// alive and unchanged, and are not copied.
		cur := b.open()
		b.arena = strings.Builder{}
		b.arena.Grow(max(2*(len(cur)+len(part)), 4096))
		b.arena.WriteString(cur)
		b.strAt = 0
	}
	// Within its capacity: no byte a string views moves or changes.
	b.arena.Write(part)
	if b.strShow {
		b.setOpen(b.open())
		b.changed = true
	}
}

// open is the open string, a view of the arena.
func (b *builder) open() string { return b.arena.String()[b.strAt:] }

// EndString implements Handler.
func (b *builder) EndString(at int) {
	if b.strOn {
		// A string with a destination: neither opaque nor passive (BeginString saw to that).
		if !b.strShow {
			b.setOpen(b.open())
		}
		b.strOn = false
		b.done()
		return
	}
	if f := b.top(); f != nil && f.kind == fOpaque && f.depth == 0 {
		b.stack = b.stack[:len(b.stack)-1]
		b.decodeOpaque(f, b.p.span(f.start, at+1))
		b.done()
		return
	}
	if b.passive() {
		return
	}
	b.done()
}

// BeginLiteral implements Handler.
func (b *builder) BeginLiteral(int) {
	if !b.metAgain() { // also when passive: a skipped or opaque frame is not a struct's
		return
	}
	if dst, _, shown, _, ok := b.target(); ok {
		// The field itself, not what its pointer leads to: null makes the pointer nil. Set only for
		// a key met again (and cleared by Literal), to spare the writes otherwise.
		if v, base := b.again(dst, shown); base.IsValid() {
			b.litVal, b.litBase = v, base
		}
	}
}

// Literal implements Handler.
func (b *builder) Literal(text []byte, at int) {
	if b.plainLiteral(text) {
		b.done()
		return
	}
	if b.passive() {
		return
	}
	if b.litBase.IsValid() {
		// A key met again: encoding/json sets the literal into what the earlier value left (null
		// keeps a number, say).
		b.litVal.Set(b.litBase)
		b.litVal, b.litBase = reflect.Value{}, reflect.Value{}
	}
	dst, ti, shown, quoted, ok := b.target()
	if ok && !quoted {
		b.setLiteral(dst, ti, shown, text)
	}
	b.done()
}

func (b *builder) setLiteral(dst reflect.Value, ti *typeInfo, shown bool, text []byte) {
	if text[0] == 'n' { // null empties what can be empty and leaves the rest, as encoding/json does
		switch dst.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			dst.SetZero()
		}
		return
	}
	if ti.decodes {
		v := b.deref(dst, shown)
		_ = b.unmarshal(text, v.Addr().Interface())
		return
	}
	v := b.deref(dst, shown)
	s := string(text)
	switch v.Kind() {
	case reflect.Bool:
		if s == "true" || s == "false" {
			v.SetBool(s == "true")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, err := strconv.ParseInt(s, 10, v.Type().Bits()); err == nil {
			v.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n, err := strconv.ParseUint(s, 10, v.Type().Bits()); err == nil {
			v.SetUint(n)
		}
	case reflect.Float32, reflect.Float64:
		if n, err := strconv.ParseFloat(s, v.Type().Bits()); err == nil {
			v.SetFloat(n)
		}
	case reflect.String:
		if v.Type() == numberType && s != "true" && s != "false" {
			v.SetString(string(text))
		}
	}
}
