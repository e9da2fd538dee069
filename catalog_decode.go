package infergate

import (
	"encoding/json"
	"unicode/utf8"
)

// The model catalogue is the largest answer a client reads often: a thousand models, each with
// the same few tags and types. decodeCatalog reads the shape the gateway sends in one pass, with
// every string a slice of one copy of the body and repeated tags and types shared; anything else
// (escapes, nulls, unknown keys, numbers that are not plain integers, invalid JSON) makes it decline,
// and encoding/json decides.

// catalogList is the catalogue's answer: {"object":"list","data":[...]} or a bare list.
type catalogList struct{ items []Model }

func (l *catalogList) UnmarshalJSON(raw []byte) error {
	if models, ok := decodeCatalog(raw); ok {
		l.items = models
		return nil
	}
	out := listOf[Model]{field: "data"}
	err := json.Unmarshal(raw, &out)
	l.items = out.items
	return err
}

// catalogScanner walks one catalogue body.
type catalogScanner struct {
	raw    []byte
	text   string // one copy of raw: strings of the result are slices of it
	i      int
	intern map[string]string
	tags   []string // backing store of every model's Tags
}

// decodeCatalog returns the models of a catalogue in the gateway's usual shape; ok is false when it
// declines.
func decodeCatalog(raw []byte) (models []Model, ok bool) {
	s := &catalogScanner{raw: raw, text: string(raw), intern: map[string]string{}}
	s.ws()
	switch s.peek() {
	case '[':
		models, ok = s.models()
	case '{':
		models, ok = s.envelope()
	}
	s.ws()
	return models, ok && s.i == len(raw)
}

func (s *catalogScanner) envelope() ([]Model, bool) {
	var models []Model
	ok := s.object(func(key string) bool {
		switch key {
		case "object":
			_, ok := s.str()
			return ok
		case "data":
			var ok bool
			models, ok = s.models()
			return ok
		}
		return false
	})
	return models, ok
}

func (s *catalogScanner) models() ([]Model, bool) {
	if !s.eat('[') {
		return nil, false
	}
	models := make([]Model, 0, len(s.raw)/160)
	if s.ws(); s.eat(']') {
		return models, true
	}
	for {
		var m Model
		if !s.model(&m) {
			return nil, false
		}
		models = append(models, m)
		s.ws()
		if s.eat(']') {
			return models, true
		}
		if !s.eat(',') {
			return nil, false
		}
	}
}

func (s *catalogScanner) model(m *Model) bool {
	return s.object(func(key string) bool {
		var ok bool
		switch key {
		case "id":
			m.ID, ok = s.str()
		case "blockchainID":
			m.BlockchainID, ok = s.str()
		case "owned_by":
			m.OwnedBy, ok = s.str()
		case "modelType":
			var t string
			t, ok = s.str()
			m.Type = ModelType(s.shared(t))
		case "created":
			m.Created, ok = s.integer()
		case "tags":
			m.Tags, ok = s.tagList()
		}
		return ok
	})
}

// object reads {"key": value, ...}, handing each key to field, which reads the value.
func (s *catalogScanner) object(field func(key string) bool) bool {
	if s.ws(); !s.eat('{') {
		return false
	}
	if s.ws(); s.eat('}') {
		return true
	}
	for {
		s.ws()
		key, ok := s.str()
		if !ok {
			return false
		}
		if s.ws(); !s.eat(':') {
			return false
		}
		if s.ws(); !field(key) {
			return false
		}
		s.ws()
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

func (s *catalogScanner) tagList() ([]string, bool) {
	if !s.eat('[') {
		return nil, false
	}
	start := len(s.tags)
	if s.ws(); !s.eat(']') {
		for {
			s.ws()
			tag, ok := s.str()
			if !ok {
				return nil, false
			}
			s.tags = append(s.tags, s.shared(tag))
			s.ws()
			if s.eat(']') {
				break
			}
			if !s.eat(',') {
				return nil, false
			}
		}
	}
	end := len(s.tags)
	return s.tags[start:end:end], true
}

// str reads a string that needs no unescaping.
func (s *catalogScanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start, ascii := s.i, true
	for ; s.i < len(s.raw); s.i++ {
		switch c := s.raw[s.i]; {
		case c == '"':
			if !ascii && !utf8.Valid(s.raw[start:s.i]) {
				return "", false
			}
			v := s.text[start:s.i]
			s.i++
			return v, true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// integer reads a non-negative integer of up to 18 digits without a sign, fraction or exponent.
func (s *catalogScanner) integer() (int64, bool) {
	start := s.i
	var n int64
	for s.i < len(s.raw) && s.raw[s.i] >= '0' && s.raw[s.i] <= '9' {
		n = n*10 + int64(s.raw[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 18 || (digits > 1 && s.raw[start] == '0') {
		return 0, false
	}
	if s.i < len(s.raw) && (s.raw[s.i] == '.' || s.raw[s.i] == 'e' || s.raw[s.i] == 'E') {
		return 0, false
	}
	return n, true
}

// shared returns one string for every equal tag or type, so that a thousand models share a few.
func (s *catalogScanner) shared(v string) string {
	if u, ok := s.intern[v]; ok {
		return u
	}
	s.intern[v] = v
	return v
}

func (s *catalogScanner) ws() {
	for s.i < len(s.raw) {
		switch s.raw[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *catalogScanner) peek() byte {
	if s.i < len(s.raw) {
		return s.raw[s.i]
	}
	return 0
}

func (s *catalogScanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}
