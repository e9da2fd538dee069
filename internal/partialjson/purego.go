//go:build purego

package partialjson

import "reflect"

// Built with the purego tag, the builder is its safe twin (safe.go): the plain path takes nothing,
// and what fast.go and alloc.go do with unsafe code is done through reflect.

type (
	addr   struct{}
	blocks struct{}
)

func (b *builder) plainBegin(bool) bool                        { return false }
func (b *builder) plainString() bool                           { return false }
func (b *builder) plainLiteral([]byte) bool                    { return false }
func (b *builder) plainKey(*frame) bool                        { return false }
func (b *builder) locate(*frame, reflect.Value)                {}
func (f *frame) slotValue(reflect.Type) reflect.Value          { return f.slot }
func (f *frame) forgetSlot()                                   {}
func (f *frame) value() reflect.Value                          { return f.v }
func (f *frame) built() int                                    { return f.full.Len() }
func (b *builder) beginSlice(f *frame)                         { b.beginSliceSafe(f) }
func (f *frame) appendSlot()                                   { f.appendSlotSafe() }
func (b *builder) openValue(v reflect.Value, show bool)        { b.openStringSafe(v, show) }
func (b *builder) newElem(ti *typeInfo) reflect.Value          { return reflect.New(ti.t).Elem() }
func (b *builder) deref(v reflect.Value, s bool) reflect.Value { return b.derefSafe(v, s) }
