package typed

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// randomType builds a type of the kinds the decoder plans, at most depth levels deep.
func randomType(rng *rand.Rand, depth int) reflect.Type {
	scalars := []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[bool](), reflect.TypeFor[int](),
		reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](), reflect.TypeFor[uint](),
		reflect.TypeFor[uint8](), reflect.TypeFor[uint64](), reflect.TypeFor[float32](), reflect.TypeFor[float64]()}
	if depth == 0 || rng.Intn(3) == 0 {
		return scalars[rng.Intn(len(scalars))]
	}
	switch rng.Intn(5) {
	case 0:
		return reflect.SliceOf(randomType(rng, depth-1))
	case 1:
		return reflect.ArrayOf(rng.Intn(3), randomType(rng, depth-1))
	case 2:
		return reflect.MapOf(reflect.TypeFor[string](), randomType(rng, depth-1))
	case 3:
		return reflect.PointerTo(randomType(rng, depth-1))
	}
	fields := make([]reflect.StructField, 1+rng.Intn(4))
	for i := range fields {
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: randomType(rng, depth-1),
			Tag: reflect.StructTag(fmt.Sprintf(`json:"f%d"`, i))}
	}
	return reflect.StructOf(fields)
}

// randomValue returns a random value of t, with at most four elements in a slice or a map.
func randomValue(rng *rand.Rand, t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		runes := []rune("ab\"\\\n\té日😀")
		s := make([]rune, rng.Intn(6))
		for i := range s {
			s[i] = runes[rng.Intn(len(runes))]
		}
		v.SetString(string(s))
	case reflect.Bool:
		v.SetBool(rng.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(rng.Int63() >> (64 - t.Bits()) * int64(1-2*rng.Intn(2)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(rng.Uint64() >> (64 - t.Bits()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(rng.NormFloat64() * 1e6)
	case reflect.Slice:
		n := rng.Intn(5)
		v.Set(reflect.MakeSlice(t, n, n))
		for i := range n {
			v.Index(i).Set(randomValue(rng, t.Elem()))
		}
	case reflect.Array:
		for i := range v.Len() {
			v.Index(i).Set(randomValue(rng, t.Elem()))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		for range rng.Intn(5) {
			v.SetMapIndex(randomValue(rng, t.Key()), randomValue(rng, t.Elem()))
		}
	case reflect.Pointer:
		if rng.Intn(4) > 0 {
			p := reflect.New(t.Elem())
			p.Elem().Set(randomValue(rng, t.Elem()))
			v.Set(p)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			v.Field(i).Set(randomValue(rng, t.Field(i).Type))
		}
	}
	return v
}

// TestTypedDecodeUnderGC decodes random values of random types while the garbage collector runs
// beside it and between steps, and checks every value against json.Unmarshal's. The values a caller
// keeps from earlier decodes share no memory with later ones, and growing a decoded slice never
// writes over another value: each decoded slice is grown by append and written to, and the decoded
// value must still be json.Unmarshal's.
func TestTypedDecodeUnderGC(t *testing.T) {
	t.Parallel()
	collectAlongside(t)

	rng := rand.New(rand.NewSource(43))
	type kept struct {
		value reflect.Value
		want  any
	}
	var keep []kept
	plain := 0
	for step := range scaled(300) {
		typ := randomType(rng, 4)
		text, err := json.Marshal(randomValue(rng, typ).Interface())
		if err != nil {
			t.Fatal(err)
		}
		want := reflect.New(typ)
		if err := json.Unmarshal(text, want.Interface()); err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		got := reflect.New(typ)
		if decodeInto(string(text), got, nil) {
			plain++
		} else {
			if err := json.Unmarshal(text, got.Interface()); err != nil {
				t.Fatal(err)
			}
		}
		if step%7 == 0 {
			runtime.GC()
		}
		growSlices(rng, got.Elem())
		if diff := cmp.Diff(want.Interface(), got.Interface(), cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("%s into %v: (-json.Unmarshal +decoded, its slices grown):\n%s", text, typ, diff)
		}
		keep = append(keep, kept{got, want.Interface()})
	}
	if plain < len(keep)*9/10 {
		t.Fatalf("the one pass decoded %d values of %d: the rest tell nothing of it", plain, len(keep))
	}
	runtime.GC()
	for _, k := range keep {
		if diff := cmp.Diff(k.want, k.value.Interface(), cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("a value decoded earlier changed: (-json.Unmarshal +decoded):\n%s", diff)
		}
	}
}

// growSlices appends a random element to every slice reachable from v (not to v's own ones: the
// grown slices are thrown away), the way a caller appends to a slice it got: an append that wrote
// into memory another value holds shows up as that value changed.
func growSlices(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			growSlices(rng, v.Index(i))
		}
		reflect.Append(v, randomValue(rng, v.Type().Elem()))
	case reflect.Array:
		for i := range v.Len() {
			growSlices(rng, v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			growSlices(rng, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			growSlices(rng, v.Field(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			growSlices(rng, v.MapIndex(k))
		}
	}
}

// longRecord is a value whose slices outgrow their blocks: they are read in scratch memory, which
// later decodes of the type take up again; Kids nests slices of one plan.
type longRecord struct {
	Name string       `json:"name"`
	N    int          `json:"n,omitempty"`
	Tags []string     `json:"tags,omitempty"`
	Note *string      `json:"note,omitempty"`
	Kids []longRecord `json:"kids,omitempty"`
}

// randomLongRecords returns up to n records, with long slices of tags and kids now and then.
func randomLongRecords(rng *rand.Rand, n, depth int) []longRecord {
	records := make([]longRecord, rng.Intn(n+1))
	for i := range records {
		r := &records[i]
		r.Name = fmt.Sprintf("record \"%d\"", rng.Intn(1000))
		if rng.Intn(2) == 0 {
			r.N = rng.Intn(100) + 1
		}
		if rng.Intn(3) > 0 {
			r.Tags = make([]string, rng.Intn(1+rng.Intn(40)))
			for j := range r.Tags {
				r.Tags[j] = fmt.Sprint("tag\n", j)
			}
		}
		if rng.Intn(2) == 0 {
			note := fmt.Sprint("note ", i)
			r.Note = &note
		}
		if depth > 0 && rng.Intn(8) == 0 {
			r.Kids = randomLongRecords(rng, 30, depth-1)
		}
	}
	return records
}

// TestLongSlicesUnderGC decodes long slices of one type again and again, with both twins, while
// the garbage collector runs beside it: a slice that outgrows its block is read in scratch memory
// that the next decodes of its type take up again, so a value must share none of it, and a decode
// must never find it holding what an earlier one wrote (a field the text leaves out stays zero).
// Every value is checked against json.Unmarshal's, its slices grown, and checked again at the end.
func TestLongSlicesUnderGC(t *testing.T) {
	t.Parallel()
	collectAlongside(t)

	rng := rand.New(rand.NewSource(43))
	type kept struct {
		value *[]longRecord
		want  []longRecord
	}
	var keep []kept
	twins := map[string]func(string, *[]longRecord) bool{
		"build's": func(text string, v *[]longRecord) bool { return decodeInto(text, reflect.ValueOf(v), nil) },
		"safe":    func(text string, v *[]longRecord) bool { return decodeSafe(text, reflect.ValueOf(v).Elem(), nil) },
	}
	for step := range scaled(60) {
		text, err := json.Marshal(randomLongRecords(rng, 200, 2))
		if err != nil {
			t.Fatal(err)
		}
		var want []longRecord
		if err := json.Unmarshal(text, &want); err != nil {
			t.Fatal(err)
		}
		for name, decode := range twins {
			got := new([]longRecord)
			if !decode(string(text), got) {
				t.Fatalf("the %s twin did not decode %s", name, text)
			}
			growLongRecords(*got)
			if !reflect.DeepEqual(want, *got) {
				t.Fatalf("the %s twin: (-json.Unmarshal +decoded, its slices grown):\n%s", name, cmp.Diff(want, *got))
			}
			keep = append(keep, kept{got, want})
		}
		if step%5 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for _, k := range keep {
		if !reflect.DeepEqual(k.want, *k.value) {
			t.Fatalf("a value decoded earlier changed: (-json.Unmarshal +decoded):\n%s", cmp.Diff(k.want, *k.value))
		}
	}
}

// growLongRecords appends to every slice in records, as growSlices does; growSlices' random
// values of a recursive type need not end.
func growLongRecords(records []longRecord) {
	_ = append(records, longRecord{Name: "grown"})
	for _, r := range records {
		_ = append(r.Tags, "grown")
		growLongRecords(r.Kids)
	}
}

// collectAlongside runs the garbage collector every millisecond beside the test until it ends, so
// that it marks and sweeps while values are being built.
func collectAlongside(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				runtime.GC()
			}
		}
	})
	t.Cleanup(func() { close(stop); wg.Wait() })
}
