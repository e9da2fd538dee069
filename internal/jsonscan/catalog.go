package jsonscan

// CatalogModel is one model of the gateway's catalogue, as DecodeCatalog reads it.
type CatalogModel struct {
	ID, BlockchainID, OwnedBy, Type string
	Created                         int64
	Tags                            []string
}

// catalogKeys are the keys DecodeCatalog reads in a model; any other key declines.
var catalogKeys = []string{"id", "blockchainID", "owned_by", "modelType", "created", "tags"}

// DecodeCatalog reads the catalogue the gateway sends, {"object":"list","data":[...]} or a bare
// list, in one pass: a model has only the keys id, blockchainID, owned_by and modelType (strings),
// created (an integer) and tags (a list of strings). Strings without escapes are slices of one copy
// of b, and equal tags and types share one string, so a thousand models cost a handful of
// allocations. Anything else declines.
func DecodeCatalog(b []byte) ([]CatalogModel, bool) {
	d := catalogDecoder{text: string(b), shared: map[string]string{}}
	d.s.reset(b)
	var models []CatalogModel
	var ok bool
	switch d.s.peek() {
	case '[':
		models, ok = d.models()
	case '{':
		ok = d.s.object(func(key []byte) bool {
			switch string(key) {
			case "object":
				_, ok := d.s.str()
				return ok
			case "data":
				var ok bool
				models, ok = d.models()
				return ok
			}
			return false
		})
	}
	d.s.ws()
	return models, ok && d.s.end()
}

type catalogDecoder struct {
	s      scanner
	text   string
	shared map[string]string
	tags   []string // backing store of every model's Tags
}

func (d *catalogDecoder) models() ([]CatalogModel, bool) {
	models := make([]CatalogModel, 0, len(d.text)/160)
	ok := d.s.array(func() bool {
		var m CatalogModel
		var seen uint16
		ok := d.s.object(func(key []byte) bool { return d.field(&m, key, &seen) })
		models = append(models, m)
		return ok
	})
	return models, ok
}

func (d *catalogDecoder) field(m *CatalogModel, key []byte, seen *uint16) bool {
	var ok bool
	for i, k := range catalogKeys {
		if k == string(key) && !once(seen, uint(i)) {
			return false
		}
	}
	switch string(key) {
	case "id":
		m.ID, ok = d.str()
	case "blockchainID":
		m.BlockchainID, ok = d.str()
	case "owned_by":
		m.OwnedBy, ok = d.str()
	case "modelType":
		m.Type, ok = d.str()
		m.Type = d.share(m.Type)
	case "created":
		m.Created, ok = d.s.integer(18)
	case "tags":
		m.Tags, ok = d.tagList()
	}
	return ok
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

// str reads a string: a slice of the copy of the input when it has no escapes, else its own copy.
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
	if u, ok := d.shared[v]; ok {
		return u
	}
	d.shared[v] = v
	return v
}
