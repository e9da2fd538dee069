package jsonscan

// template is the text of the last chunk decoded the slow way, with where its string values lie
// (the scanner's slots) and where its raw values lie (the scanner's raws). The decoded Chunk's
// strings and raw values point into text, so that they stay valid while later chunks replay it.
type template struct {
	text []byte
	ok   bool
	gen  uint64 // counts the texts kept: text is written only by keep, which moves gen on first
	runs bool   // the slots' last fields stand: no slot was noted, escaped or moved since
}

// slot is one string value of the template's text: its text, quotes excluded, and the field that
// holds it (neither for a string inside a skipped value).
type slot struct {
	start, end int
	str        *Str
	bytes      *[]byte
	escaped    bool // its value is not its text: it is read again in every chunk
	moved      bool // the value differed in a later chunk: it is read again in every chunk
	last       int  // the last slot of the run of slots neither escaped nor moved that starts here
}

// rawRef is a raw value of the template's text and the field that holds it.
type rawRef struct {
	start int
	dst   *[]byte
}

// note records the string value whose opening quote is at start, when the scanner records.
func (s *scanner) note(start int, str *Str, bytes *[]byte) {
	if s.record && s.i > start {
		s.slots = append(s.slots, slot{start: start + 1, end: s.i - 1, str: str, bytes: bytes})
	}
}

// keep makes data, just decoded the slow way, the template of the chunks to come: the decoded
// strings and raw values are pointed into a copy of data. It keeps nothing when a list moved while
// it was decoded (the noted fields are no longer the chunk's; the next chunk, whose lists have
// room, is kept instead), when nothing was noted (the first chunk), or when a field went over raw.
func (d *ChunkDecoder) keep(data []byte) {
	s := &d.s
	if !s.record || s.grew || s.extra {
		return
	}
	t := &d.tmpl
	t.gen++
	t.text = append(t.text[:0], data...)
	for i := range s.slots {
		sl := &s.slots[i]
		text := t.text[sl.start:sl.end:sl.end]
		switch {
		case sl.str != nil:
			sl.escaped = len(sl.str.B) != len(text)
			if !sl.escaped {
				sl.str.B = text
			}
		case sl.bytes != nil:
			sl.escaped = len(*sl.bytes) != len(text)
			if !sl.escaped {
				*sl.bytes = text
			}
		}
	}
	for _, r := range s.raws {
		*r.dst = t.text[r.start : r.start+len(*r.dst) : r.start+len(*r.dst)]
	}
	t.ok, t.runs = true, false
}

// findRuns sets each slot's last field. A slot that moves ends the runs before it only for the
// chunks after: within a replay, a run is read past before any of its slots can move.
func (d *ChunkDecoder) findRuns() {
	slots := d.s.slots
	for k := len(slots) - 1; k >= 0; k-- {
		slots[k].last = k
		if k+1 < len(slots) && settled(&slots[k]) && settled(&slots[k+1]) {
			slots[k].last = slots[k+1].last
		}
	}
	d.tmpl.runs = true
}

// settled tells a slot whose text is still its value: a run of them is compared as text.
func settled(sl *slot) bool { return !sl.moved && !sl.escaped }

// Generation names the template text the decoder holds now. That text does not change while its
// generation lasts: a caller who saw b lie in it (see Stamp) and sees the same b again in the same
// generation sees the same bytes, without comparing them.
func (d *ChunkDecoder) Generation() uint64 { return d.tmpl.gen }

// Stamp returns the generation of the template text that b lies in, or 0 when b lies elsewhere
// (the event's data, or an unescaped copy, which later chunks overwrite).
func (d *ChunkDecoder) Stamp(b []byte) uint64 {
	if !within(d.tmpl.text, b) {
		return 0
	}
	return d.tmpl.gen
}

// withinSafe is within's safe twin: it looks for b's first byte among t's, one address after the
// other, where within compares two addresses as numbers.
func withinSafe(t, b []byte) bool {
	if len(b) == 0 || len(b) > len(t) {
		return false
	}
	for i := range len(t) - len(b) + 1 {
		if &t[i] == &b[0] {
			return true
		}
	}
	return false
}

// replay reads data as the template with other string values: it holds data to the template's
// text outside the strings, byte for byte (keys, numbers, literals, raw values, white space), and
// reads the strings that differ. What is outside the strings decides every step of the slow
// decoder, and so, when it matches, data decodes to the template's chunk with those strings in
// place: replay gives the same chunk as decode. Strings whose fields still hold the template's
// (none differed so far) are compared with the text around them, a run of them at once; a string
// that differed before is read again at once. It reports false when data does not match, leaving
// the caller to decode it the slow way.
func (d *ChunkDecoder) replay(data []byte) bool {
	if !d.tmpl.runs {
		d.findRuns()
	}
	s, t := &d.s, d.tmpl.text
	slots := s.slots
	pos, tpos := 0, 0
	for k := 0; k < len(slots); k++ {
		sl := &slots[k]
		// Identical bytes through a string's closing quote are the same string: its text, which
		// the template read as one whole string, cannot end otherwise.
		if settled(sl) {
			r := sl.last
			// The run's text goes on up to the opening quote of the string after it, which differed
			// before: that string is read next.
			end := slots[r].end + 1
			if r+1 < len(slots) {
				end = slots[r+1].start
			}
			if n := end - tpos; len(data)-pos >= n && string(data[pos:pos+n]) == string(t[tpos:end]) {
				pos, tpos, k = pos+n, end, r
				if r+1 < len(slots) {
					k++
					if !d.read(&slots[k], &pos) {
						return false
					}
					tpos = slots[k].end
				}
				continue
			}
			if n := sl.end + 1 - tpos; r > k && len(data)-pos >= n && string(data[pos:pos+n]) == string(t[tpos:tpos+n]) {
				pos, tpos = pos+n, tpos+n
				continue
			}
		}
		n := sl.start - tpos
		if len(data)-pos < n || string(data[pos:pos+n]) != string(t[tpos:sl.start]) {
			return false
		}
		pos += n
		if !d.read(sl, &pos) {
			return false
		}
		tpos = sl.end // the closing quotes, which the next comparison starts with
	}
	return string(data[pos:]) == string(t[tpos:])
}

// read reads the string of sl in data, whose text starts at *pos (after the opening quote), into
// its field, and leaves *pos at the closing quote.
func (d *ChunkDecoder) read(sl *slot, pos *int) bool {
	s := &d.s
	s.i = *pos - 1
	b, ok := s.unescaped()
	if !ok {
		return false
	}
	sl.set(b)
	if !sl.moved && (sl.str != nil || sl.bytes != nil) {
		sl.moved, d.tmpl.runs = true, false
	}
	*pos = s.i - 1
	return true
}

func (sl *slot) set(b []byte) {
	switch {
	case sl.str != nil:
		sl.str.B = b
	case sl.bytes != nil:
		*sl.bytes = b
	}
}
