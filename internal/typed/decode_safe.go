package typed

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/infergate/infergate-go/internal/schema"
)

// This file is the typed decoder's safe twin: the same pass as decode_unsafe.go's, over the same
// plans and the same scanner, writing values through reflect instead of through their addresses.
// A build with the purego tag decodes with it; the default build compiles it too, so that
// FuzzTypedDecodeTwins can feed both twins the same text and compare what they build.

// decodeSafe decodes text into v, an addressable value holding its zero value, and with q also
// proves it valid against q's schema. It reports false, with v zero again, where json.Unmarshal
// (and the validator) have to take over.
func decodeSafe(text string, v reflect.Value, q *schema.QuickSchema) bool {
	p := plainPlanOf(v.Type(), q)
	if p.kind == pkOther {
		return false
	}
	d := plainDecoder{s: text, allocs: make([]plainAlloc, p.allocs), safe: true}
	if q != nil {
		d.check.Data, d.check.Safe, d.checking = []byte(text), true, true
	}
	if d.valueSafe(v, p, 0) && d.end() && (q == nil || d.check.Within(q)) {
		return true
	}
	v.SetZero()
	return false
}

// valueSafe is value, writing through reflect.
func (d *plainDecoder) valueSafe(v reflect.Value, p *plainPlan, depth int) bool {
	c := d.next()
	if p.kind == pkOther {
		return d.otherSafe(v, p, depth)
	}
	n := p.node
	if d.checking {
		if depth > schema.MaxQuickDepth || c == 0 {
			return false
		}
		d.check.Nodes++
		d.check.MaxDepth = max(d.check.MaxDepth, int64(depth))
		if n != nil {
			if n.Never {
				return false
			}
			d.check.Work += n.Cost
		}
	} else if depth > maxPlainDepth {
		return false
	}
	if c == 'n' {
		return d.literal("null") && n.Admits(schema.KindNull, nil)
	}
	for hops := 0; p.kind == pkPointer; hops++ {
		if hops > maxPlainDepth {
			return false
		}
		target := d.oneSafe(p)
		v.Set(target.Addr())
		v, p = target, p.elem
		if p.kind == pkOther {
			if d.checking {
				d.check.Nodes--
				if n != nil {
					d.check.Work -= n.Cost
				}
			}
			return d.otherSafe(v, p, depth)
		}
	}
	switch p.kind {
	case pkString:
		s, ok := d.str()
		v.SetString(s)
		return ok && n.AdmitsString(s)
	case pkBool:
		var b bool
		switch {
		case d.literal("true"):
			b = true
		case d.literal("false"):
		default:
			return false
		}
		v.SetBool(b)
		return n.Admits(schema.KindBoolean, b)
	case pkInt, pkUint, pkFloat:
		return d.numberSafe(v, p)
	case pkStruct:
		return c == '{' && n.AdmitsContainer(schema.KindObject) && d.objectSafe(v, p, depth)
	case pkMap:
		return c == '{' && n.AdmitsContainer(schema.KindObject) && d.mappingSafe(v, p, depth)
	}
	return c == '[' && n.AdmitsContainer(schema.KindArray) && d.arraySafe(v, p, depth)
}

// oneSafe hands out a zero element, as one does.
func (d *plainDecoder) oneSafe(p *plainPlan) reflect.Value {
	a := &d.allocs[p.id]
	if a.used == a.cap {
		d.newBlock(a, p, 1, 0)
	}
	a.used++
	a.handed++
	return a.block.Index(a.used - 1)
}

// otherSafe is other, writing through reflect.
func (d *plainDecoder) otherSafe(v reflect.Value, p *plainPlan, depth int) bool {
	start, ok := d.otherText(p, depth)
	return ok && json.Unmarshal([]byte(d.s[start:d.i]), v.Addr().Interface()) == nil
}

// objectSafe is object, writing through reflect.
func (d *plainDecoder) objectSafe(v reflect.Value, p *plainPlan, depth int) bool {
	var met, props uint64
	next := 0
	d.i++
	if d.next() == '}' {
		d.i++
		return p.node.HasRequired(0)
	}
	for {
		at := d.nextField(p, next)
		if at < 0 {
			return false
		}
		f := &p.fields[at]
		if met&f.bit != 0 || f.refused {
			return false
		}
		met, props, next = met|f.bit, props|f.prop, at+1
		if !d.valueSafe(v.Field(f.index), f.plan, depth+1) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return p.node.HasRequired(props)
		default:
			return false
		}
	}
}

// mappingSafe is mapping, writing through reflect.
func (d *plainDecoder) mappingSafe(v reflect.Value, p *plainPlan, depth int) bool {
	v.Set(reflect.MakeMap(p.t))
	keyType := p.t.Key()
	return d.members(func(key string) bool {
		if p.node != nil && p.node.NoExtra {
			return false
		}
		elem := reflect.New(p.elem.t).Elem()
		if !d.valueSafe(elem, p.elem, depth+1) {
			return false
		}
		size := v.Len()
		v.SetMapIndex(reflect.ValueOf(key).Convert(keyType), elem)
		return v.Len() > size
	})
}

// arraySafe is array, writing through reflect.
func (d *plainDecoder) arraySafe(v reflect.Value, p *plainPlan, depth int) bool {
	d.i++
	if p.kind == pkArray {
		length := p.t.Len()
		if d.next() == ']' {
			d.i++
			return p.node.AdmitsCount(0)
		}
		for n := 0; ; n++ {
			if n == length || !d.valueSafe(v.Index(n), p.elem, depth+1) {
				return false
			}
			switch d.next() {
			case ',':
				d.i++
			case ']':
				d.i++
				return p.node.AdmitsCount(n + 1)
			default:
				return false
			}
		}
	}
	if d.next() == ']' {
		d.i++
		v.Set(p.empty) // empty, not nil
		return p.node.AdmitsCount(0)
	}
	a := &d.allocs[p.id]
	if a.busy {
		a = &plainAlloc{}
	}
	a.busy = true
	if a.used == a.cap {
		d.newBlock(a, p, 1, 0)
	}
	start := a.used
	at, room := a.block.Slice(start, a.cap), a.cap-start // where the elements are read
	var s *scratchBlock
	for n := 0; ; n++ {
		if n == room {
			s = spill(a, p, s, start, n)
			at, room = s.block, s.cap
		}
		if !d.valueSafe(at.Index(n), p.elem, depth+1) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case ']':
			d.i++
			if s != nil {
				start = d.settle(a, p, s, n+1)
			}
			v.Set(a.block.Slice3(start, start+n+1, start+n+1))
			a.used, a.busy, a.handed = start+n+1, false, a.handed+n+1
			return p.node.AdmitsCount(n + 1)
		default:
			return false
		}
	}
}

// numberSafe is number, writing through reflect.
func (d *plainDecoder) numberSafe(v reflect.Value, p *plainPlan) bool {
	num := d.numberText()
	text, plain := num.text, num.plain
	if text == "" {
		return false
	}
	n := p.node
	switch p.kind {
	case pkFloat:
		if p.size == 4 {
			f, err := strconv.ParseFloat(text, 32)
			v.SetFloat(f)
			return err == nil && (n == nil || n.AdmitsNumber(text, plain))
		}
		f, ok := num.float()
		if !ok {
			var err error
			if f, err = strconv.ParseFloat(text, 64); err != nil {
				return false
			}
		}
		v.SetFloat(f)
		if n == nil || !n.NeedsValue(text, plain) {
			return n.AdmitsInteger()
		}
		return n.AdmitsFloat(f)
	case pkInt:
		bits := int(p.size * 8)
		i, ok := num.int()
		if !ok || i < -1<<(bits-1) || i > 1<<(bits-1)-1 {
			var err error
			if i, err = strconv.ParseInt(text, 10, bits); err != nil {
				return false
			}
		}
		v.SetInt(i)
	default:
		u, err := strconv.ParseUint(text, 10, int(p.size*8))
		if err != nil {
			return false
		}
		v.SetUint(u)
	}
	return n == nil || n.AdmitsNumber(text, plain)
}
