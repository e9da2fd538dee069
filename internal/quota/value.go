package quota

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of the JSON values read here; the gateway's own parser refuses
// much less.
const maxDepth = 1000

var errDepth = errors.New("quota: JSON nested too deep")

// value is a JSON value as Python holds it after json.loads: an object keeps its members in
// order, a later duplicate replacing an earlier one's value in its place.
type value struct {
	kind  byte // 's' string, 'n' number, 'b' bool, 'z' null, 'o' object, 'a' array
	text  string
	keys  []string
	items []value // an object's values, parallel to keys, or an array's items
}

// parseValue reads one JSON value, the whole of data.
func parseValue(data []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return value{}, errors.New("quota: data after the JSON value")
	}
	return v, nil
}

func readValue(dec *json.Decoder, depth int) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return value{}, err
	}
	return readFrom(dec, tok, depth)
}

func readFrom(dec *json.Decoder, tok json.Token, depth int) (value, error) {
	switch t := tok.(type) {
	case string:
		return value{kind: 's', text: t}, nil
	case json.Number:
		return value{kind: 'n', text: string(t)}, nil
	case bool:
		return value{kind: 'b', text: map[bool]string{true: "True", false: "False"}[t]}, nil
	case nil:
		return value{kind: 'z'}, nil
	case json.Delim:
		if depth >= maxDepth {
			return value{}, errDepth
		}
		if t == '[' {
			return readArray(dec, depth+1)
		}
		if t == '{' {
			return readObject(dec, depth+1)
		}
	}
	return value{}, fmt.Errorf("quota: unexpected JSON token %v", tok)
}

func readArray(dec *json.Decoder, depth int) (value, error) {
	v := value{kind: 'a'}
	for dec.More() {
		item, err := readValue(dec, depth)
		if err != nil {
			return value{}, err
		}
		v.items = append(v.items, item)
	}
	_, err := dec.Token() // ']'
	return v, err
}

func readObject(dec *json.Decoder, depth int) (value, error) {
	v := value{kind: 'o'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return value{}, err
		}
		key, _ := tok.(string)
		item, err := readValue(dec, depth)
		if err != nil {
			return value{}, err
		}
		v.set(key, item)
	}
	_, err := dec.Token() // '}'
	return v, err
}

func (v *value) set(key string, item value) {
	for i, k := range v.keys {
		if k == key {
			v.items[i] = item
			return
		}
	}
	v.keys = append(v.keys, key)
	v.items = append(v.items, item)
}

// member returns the object's member named key, and whether it is there.
func (v value) member(key string) (value, bool) {
	for i, k := range v.keys {
		if k == key {
			return v.items[i], true
		}
	}
	return value{}, false
}

// withoutNulls is v with its objects' null members left out, at every depth.
func (v value) withoutNulls() value {
	out := value{kind: v.kind, text: v.text}
	for i, item := range v.items {
		if v.kind == 'o' {
			if item.kind == 'z' {
				continue
			}
			out.keys = append(out.keys, v.keys[i])
		}
		out.items = append(out.items, item.withoutNulls())
	}
	return out
}

// reprLen is the length of Python's repr() of v.
func (v value) reprLen() int {
	switch v.kind {
	case 's':
		return ReprLen(v.text)
	case 'n':
		return numberReprLen(v.text)
	case 'b':
		return len(v.text)
	case 'z':
		return len("None")
	}
	n := 2
	for i, item := range v.items {
		if i > 0 {
			n += 2 // ", "
		}
		if v.kind == 'o' {
			n += ReprLen(v.keys[i]) + 2 // ": "
		}
		n += item.reprLen()
	}
	return n
}

// strLen is the length of Python's str() of v: a string's own length, else its repr().
func (v value) strLen() int {
	if v.kind == 's' {
		return StringContent(v.text)
	}
	return v.reprLen()
}

// numberReprLen is the length of Python's repr() of the number json.loads makes of the JSON number
// text: an int's digits, or a float's shortest repr.
func numberReprLen(text string) int {
	if !strings.ContainsAny(text, ".eE") {
		digits := strings.TrimLeft(strings.TrimPrefix(text, "-"), "0")
		if digits == "" {
			return 1 // 0, and -0
		}
		return len(text) - len(strings.TrimPrefix(text, "-")) + len(digits)
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return len(text)
	}
	return len(floatRepr(f))
}

// floatRepr is Python's repr() of f: the shortest digits that read back as f, in positional
// notation with at least one decimal when the decimal exponent is from -4 to 15, else as d.ddde±XX.
func floatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	if e < -4 || e >= 16 {
		sign := exp[:1]
		digits := strings.TrimLeft(exp[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + sign + digits
	}
	s = strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// ValueLen is the length of Python's repr() of the JSON value data, with its objects' null members
// left out, as the gateway counts a content part of a type it keeps whole.
func ValueLen(data []byte) (int, error) {
	v, err := parseValue(data)
	if err != nil {
		return 0, err
	}
	return v.withoutNulls().reprLen(), nil
}
