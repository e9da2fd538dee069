package partialjson

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The unsafe paths' proof beside -race (which turns checkptr on): random types and values, decoded
// from their encoding/json text in small pieces by the builder and by its safe twin, with the
// garbage collector forced every few pieces, must end as encoding/json decodes the text; and a
// caller who shares memory with the value being built (appends to its slices, or puts slices of
// its own with spare capacity in their place) never sees the builder write into its memory, nor
// changes what the builder builds.

type label string

// randomType is a random type of at most depth levels of containers.
func randomType(rng *rand.Rand, depth int) reflect.Type {
	leaves := []reflect.Type{
		reflect.TypeFor[string](), reflect.TypeFor[label](), reflect.TypeFor[bool](), reflect.TypeFor[int8](),
		reflect.TypeFor[int16](), reflect.TypeFor[int32](), reflect.TypeFor[int64](), reflect.TypeFor[int](),
		reflect.TypeFor[uint8](), reflect.TypeFor[uint32](), reflect.TypeFor[uint](), reflect.TypeFor[float32](),
		reflect.TypeFor[float64](), reflect.TypeFor[json.Number](), reflect.TypeFor[time.Time](), reflect.TypeFor[[]byte](),
	}
	if depth == 0 || rng.IntN(3) == 0 {
		return leaves[rng.IntN(len(leaves))]
	}
	switch rng.IntN(5) {
	case 0:
		return reflect.PointerTo(randomType(rng, depth-1))
	case 1:
		return reflect.SliceOf(randomType(rng, depth-1))
	case 2:
		return reflect.ArrayOf(1+rng.IntN(3), randomType(rng, depth-1))
	case 3:
		return reflect.MapOf(reflect.TypeFor[string](), randomType(rng, depth-1))
	}
	fields := make([]reflect.StructField, rng.IntN(5))
	for i := range fields {
		tag := fmt.Sprintf(`json:"f%d"`, i)
		if rng.IntN(4) == 0 {
			tag = fmt.Sprintf(`json:"f%d,omitempty"`, i)
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: randomType(rng, depth-1), Tag: reflect.StructTag(tag)}
	}
	return reflect.StructOf(fields)
}

// randomValue sets v, of any type randomType makes, to a random value.
func randomValue(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.Type() == numberType {
			v.SetString(fmt.Sprint(rng.IntN(2000) - 1000))
			return
		}
		n := rng.IntN(12)
		if rng.IntN(20) == 0 {
			n = 5000 // past the arena's first block
		}
		var b strings.Builder
		for range n {
			b.WriteString([]string{"a", "é", "\"", "\\", "\n", "😀", "<"}[rng.IntN(7)])
		}
		v.SetString(b.String())
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(rng.IntN(200) - 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint32:
		v.SetUint(uint64(rng.IntN(200)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(rng.IntN(20000)-10000) / 64)
	case reflect.Pointer:
		if rng.IntN(5) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			randomValue(rng, v.Elem())
		}
	case reflect.Slice:
		if rng.IntN(6) == 0 {
			return
		}
		n := rng.IntN(6)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			randomValue(rng, v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			randomValue(rng, v.Index(i))
		}
	case reflect.Map:
		if rng.IntN(6) == 0 {
			return
		}
		v.Set(reflect.MakeMap(v.Type()))
		for range rng.IntN(4) {
			e := reflect.New(v.Type().Elem()).Elem()
			randomValue(rng, e)
			v.SetMapIndex(reflect.ValueOf(fmt.Sprintf("k%d", rng.IntN(5))), e)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(int64(rng.IntN(1<<30)), 0).UTC()))
			return
		}
		for i := range v.NumField() {
			randomValue(rng, v.Field(i))
		}
	}
}

// slicesOf calls visit with every slice of v that the caller can reach and set: through pointers,
// struct fields, slice and array elements, not map values (which are copies).
func slicesOf(v reflect.Value, visit func(reflect.Value)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			slicesOf(v.Elem(), visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			slicesOf(v.Field(i), visit)
		}
	case reflect.Slice:
		for i := range v.Len() {
			slicesOf(v.Index(i), visit)
		}
		if v.CanSet() {
			visit(v)
		}
	case reflect.Array:
		for i := range v.Len() {
			slicesOf(v.Index(i), visit)
		}
	}
}

// sharer is a caller sharing memory with a value in progress: what it appended and the arrays it
// put in place, to check that the builder wrote into neither.
type sharer struct {
	rng      *rand.Rand
	appended []reflect.Value // slices whose last element is the caller's
	junk     []reflect.Value // that element, as the caller wrote it (a copy)
	own      []reflect.Value // the caller's own arrays, whose elements past len(slice) must stay zero
	err      error           // the first slice shown with spare capacity
}

// touch appends to some of v's slices and replaces others with copies of its own that have spare
// capacity, as a caller holding the value might.
func (s *sharer) touch(v reflect.Value) {
	slicesOf(v, func(sl reflect.Value) {
		for _, o := range s.own {
			if sl.Pointer() == o.Pointer() {
				return // the caller's own array, which the builder shows until its next element
			}
		}
		if sl.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte: encoding/json's, decoded whole, with spare capacity at times
		}
		if sl.Cap() != sl.Len() && s.err == nil {
			s.err = fmt.Errorf("a slice the value shows has spare capacity: len %d, cap %d", sl.Len(), sl.Cap())
		}
		switch s.rng.IntN(4) {
		case 0:
			junk := reflect.New(sl.Type().Elem()).Elem()
			randomValue(s.rng, junk)
			keep := reflect.New(junk.Type()).Elem()
			keep.Set(junk)
			s.appended = append(s.appended, reflect.Append(sl, junk))
			s.junk = append(s.junk, keep)
		case 1:
			if sl.IsNil() {
				return
			}
			own := reflect.MakeSlice(sl.Type(), sl.Len(), sl.Len()+4)
			reflect.Copy(own, sl)
			sl.Set(own)
			s.own = append(s.own, own)
		}
	})
}

// check reports how the builder wrote into the caller's memory, if it did.
func (s *sharer) check() error {
	if s.err != nil {
		return s.err
	}
	for i, a := range s.appended {
		if last := a.Index(a.Len() - 1); !reflect.DeepEqual(last.Interface(), s.junk[i].Interface()) {
			return fmt.Errorf("an element the caller appended changed: %v, appended as %v", last, s.junk[i])
		}
	}
	for _, o := range s.own {
		spare := o.Slice(o.Len(), o.Cap())
		for j := range spare.Len() {
			if !spare.Index(j).IsZero() {
				return fmt.Errorf("the builder wrote into the caller's array, past its length: %v", spare.Index(j))
			}
		}
	}
	return nil
}

func TestBuilderUnderGCMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 5))
	runs := 40
	if testing.Short() {
		runs = 20
	}
	for run := range runs {
		typ := randomType(rng, 4)
		v := reflect.New(typ).Elem()
		randomValue(rng, v)
		text, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		want := reflect.New(typ)
		if err := json.Unmarshal(text, want.Interface()); err != nil {
			t.Fatalf("%v: %s: %v", typ, text, err)
		}
		for _, safe := range []bool{false, true} {
			got := reflect.New(typ)
			d := NewDecoder(got.Elem())
			d.b.safe = safe
			caller := sharer{rng: rng}
			every := 1 + rng.IntN(6) // pieces between collections
			for i, piece := 0, 0; i < len(text); piece++ {
				end := min(len(text), i+1+rng.IntN(8))
				if _, err := d.Write(text[i:end]); err != nil {
					t.Fatalf("run %d, safe %v: %v: %s: %v", run, safe, typ, text, err)
				}
				caller.touch(got.Elem())
				if piece%every == 0 {
					runtime.GC()
				}
				i = end
			}
			if _, err := d.Close(); err != nil {
				t.Fatalf("run %d, safe %v: %v: %s: %v", run, safe, typ, text, err)
			}
			runtime.GC()
			if diff := cmp.Diff(want.Interface(), got.Interface()); diff != "" {
				t.Fatalf("run %d, safe %v: %v: %s (-encoding/json +decoder):\n%s", run, safe, typ, text, diff)
			}
			if err := caller.check(); err != nil {
				t.Fatalf("run %d, safe %v: %v: %s: %v", run, safe, typ, text, err)
			}
		}
	}
}
