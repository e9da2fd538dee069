package partialjson

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The builder's safe twin (safe.go) shows what the builder shows, at every cut, for the same text.

// checkTwins decodes text, cut at random, into two values of type typ, by the builder and by its
// safe twin, and requires the same changes, errors and values after every cut.
func checkTwins(t *testing.T, typ reflect.Type, text string, rng *rand.Rand) {
	t.Helper()
	fast, safe := reflect.New(typ), reflect.New(typ)
	df, ds := NewDecoder(fast.Elem()), NewDecoder(safe.Elem())
	ds.b.safe = true
	for i := 0; i < len(text); {
		end := min(len(text), i+1+rng.IntN(12))
		cf, errF := df.WriteString(text[i:end])
		cs, errS := ds.WriteString(text[i:end])
		if (errF == nil) != (errS == nil) || cf != cs {
			t.Fatalf("%s\nafter %q: builder changed %v, error %v; safe twin changed %v, error %v", text, text[:end], cf, errF, cs, errS)
		}
		if !reflect.DeepEqual(fast.Interface(), safe.Interface()) { // cmp only to say how
			t.Fatalf("%s\nafter %q (-safe +builder):\n%s", text, text[:end], cmp.Diff(safe.Interface(), fast.Interface(), cmp.AllowUnexported(plainKinds{})))
		}
		i = end
	}
}

// twinTypes are the types the twins are held to: every kind the plain path takes, and the general
// path's (values that decode themselves, keys met again, maps, arrays).
var twinTypes = []reflect.Type{reflect.TypeFor[plainKinds](), reflect.TypeFor[outer](), reflect.TypeFor[[]*plainLeaf]()}

func TestSafeTwinMatchesBuilder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 4))
	for range 300 {
		for _, typ := range twinTypes {
			var w strings.Builder
			randomJSON(rng, typ, 0, &w)
			checkTwins(t, typ, w.String(), rng)
		}
	}
	for _, text := range decoderCases {
		checkTwins(t, reflect.TypeFor[outer](), text, rng)
	}
}

// FuzzBuilderTwins is the builder's differential fuzz target: each text, cut where the seed says,
// goes to the builder and its safe twin for each of twinTypes.
func FuzzBuilderTwins(f *testing.F) {
	for _, c := range decoderCases {
		f.Add(c, uint64(1))
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range 20 {
		var w strings.Builder
		randomJSON(rng, twinTypes[i%len(twinTypes)], 0, &w)
		f.Add(w.String(), uint64(i))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		for _, typ := range twinTypes {
			checkTwins(t, typ, text, rand.New(rand.NewPCG(seed, 3)))
		}
	})
}
