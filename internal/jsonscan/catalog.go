package jsonscan

// CatalogModel is one model of the gateway's catalogue, as DecodeCatalog reads it.
type CatalogModel struct {
	ID, BlockchainID, OwnedBy, Type string
	Created                         int64
	Tags                            []string
}

// DecodeCatalog reads the catalogue the gateway sends, {"object":"list","data":[...]} or a bare
// list, in one pass, handing each model to add: a model has only the keys id, blockchainID,
// owned_by and modelType (strings), created (an integer) and tags (a list of strings). Strings
// without escapes share one copy of b, and equal tags and types share one string, so a thousand
// models cost a handful of allocations. Anything else declines; add may then have seen some models
// already.
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
	}
	return false
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
	if i := plainRun(d.s.b, start); i < len(d.s.b) && d.s.b[i] == '"' {
		d.s.i = i + 1
		return d.text[start:i], true
	}
	v, ok := d.s.slowStr(start)
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
