package jsonscan

// CatalogModel is one model of the gateway's catalogue, as DecodeCatalog reads it.
type CatalogModel struct {
	ID, BlockchainID, OwnedBy, Type string
	Created                         int64
	Tags                            []string
	// The facts a server may send: each context size as sent, zero when absent; each price per
	// million tokens as the text of the number or the content of the string, empty when absent.
	ContextLength, MaxModelLen, ContextWindow int64
	InputPrice, OutputPrice                   string
	Capabilities                              []string
	TEE                                       bool
}

// DecodeCatalog reads the catalogue the gateway sends, {"object":"list","data":[...]} or a bare
// list, in one pass, handing each model to add: a model has only the keys id, blockchainID,
// owned_by and modelType (strings), created, context_length, max_model_len and context_window
// (integers), input_price_per_million and output_price_per_million (numbers or strings), tags and
// capabilities (lists of strings) and tee (a boolean). Strings without escapes share one copy of
// b, and equal tags, capabilities and types share one string, so a thousand models cost a handful
// of allocations. Anything else declines; add may then have seen some models already.
func DecodeCatalog(b []byte, add func(CatalogModel)) bool {
	// One copy of the body, which the models' strings are cut from, costs one allocation instead of
	// one per string.
	text := string(b)
	d := catalogDecoder{text: text, shared: map[string]string{}, add: add,
		tags: make([]string, 0, len(b)/48)} // about three tags per 150-byte model
	d.s.reset(b)
	var ok bool
	switch d.s.peek() {
	case '[':
		ok = d.models()
	case '{':
		var seen uint16
		ok = d.s.object(func(key []byte) bool {
			switch string(key) {
			case "object":
				_, ok := d.s.str()
				return once(&seen, 0) && ok
			case "data":
				return once(&seen, 1) && d.models()
			}
			return false
		})
	}
	d.s.ws()
	return ok && d.s.end()
}

type catalogDecoder struct {
	s      scanner
	text   string
	shared map[string]string
	recent [8]string // the last strings shared, checked before the map
	next   int
	tags   []string // backing store of every model's Tags
	add    func(CatalogModel)
}

func (d *catalogDecoder) models() bool {
	return d.s.array(func() bool {
		var m CatalogModel
		var seen uint16
		if !d.s.object(func(key []byte) bool { return d.field(&m, key, &seen) }) {
			return false
		}
		d.add(m)
		return true
	})
}

func (d *catalogDecoder) field(m *CatalogModel, key []byte, seen *uint16) bool {
	var ok bool
	switch string(key) {
	case "id":
		m.ID, ok = d.str()
		return ok && once(seen, 0)
	case "blockchainID":
		m.BlockchainID, ok = d.str()
		return ok && once(seen, 1)
	case "owned_by":
		m.OwnedBy, ok = d.str()
		return ok && once(seen, 2)
	case "modelType":
		m.Type, ok = d.str()
		m.Type = d.share(m.Type)
		return ok && once(seen, 3)
	case "created":
		m.Created, ok = d.s.integer(18)
		return ok && once(seen, 4)
	case "tags":
		m.Tags, ok = d.tagList()
		return ok && once(seen, 5)
	case "context_length":
		m.ContextLength, ok = d.s.integer(18)
		return ok && once(seen, 6)
	case "max_model_len":
		m.MaxModelLen, ok = d.s.integer(18)
		return ok && once(seen, 7)
	case "context_window":
		m.ContextWindow, ok = d.s.integer(18)
		return ok && once(seen, 8)
	case "input_price_per_million":
		m.InputPrice, ok = d.price()
		return ok && once(seen, 9)
	case "output_price_per_million":
		m.OutputPrice, ok = d.price()
		return ok && once(seen, 10)
	case "capabilities":
		m.Capabilities, ok = d.tagList()
		return ok && once(seen, 11)
	case "tee":
		m.TEE = d.s.peek() == 't'
		ok = d.s.literal("true") || d.s.literal("false")
		return ok && once(seen, 12)
	}
	return false
}

// price reads a price sent as a number (its text) or as a string (its content).
func (d *catalogDecoder) price() (string, bool) {
	if d.s.peek() == '"' {
		return d.str()
	}
	start := d.s.i
	if !d.s.number() {
		return "", false
	}
	return d.text[start:d.s.i], true
}

func (d *catalogDecoder) tagList() ([]string, bool) {
	start := len(d.tags)
	ok := d.s.array(func() bool {
		tag, ok := d.str()
		d.tags = append(d.tags, d.share(tag))
		return ok
	})
	end := len(d.tags)
	return d.tags[start:end:end], ok
}

// str reads a string: a slice of the input when it has no escapes, else its own copy.
func (d *catalogDecoder) str() (string, bool) {
	if d.s.peek() != '"' {
		return "", false
	}
	start := d.s.i + 1
	i := plainRun(d.s.b, start)
	if i < len(d.s.b) && d.s.b[i] == '"' {
		d.s.i = i + 1
		return d.text[start:i], true
	}
	v, ok := d.s.slowStr(start, i)
	return string(v), ok
}

func (d *catalogDecoder) share(v string) string {
	for _, u := range d.recent {
		if u == v {
			return u
		}
	}
	u, ok := d.shared[v]
	if !ok {
		d.shared[v], u = v, v
	}
	d.recent[d.next] = u
	d.next = (d.next + 1) % len(d.recent)
	return u
}
