package modelfacts

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// referencePrice is the gateway's rule as it reads, each key tried both ways.
func referencePrice(name string) (int, bool) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
	for _, suffix := range []string{"-instruct", "-chat", "-base"} {
		n = strings.TrimSuffix(n, suffix)
	}
	if i, ok := priceIndex[n]; ok {
		return i, true
	}
	for _, key := range priceKeys {
		if strings.Contains(n, key) || strings.Contains(key, n) {
			return priceIndex[key], true
		}
	}
	return 0, false
}

// Random names made of the keys' pieces, case, separators and suffixes get the rule's answer, the
// first time (worked out) and the second (remembered).
func TestLookupPriceAgreesWithTheRule(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 43))
	pieces := []string{"-", "_", " ", ":web", ":tee", "-instruct", "-chat", "-base", "meta-", "x", "", "70b", "GLM", "Qwen3"}
	for _, key := range priceKeys {
		pieces = append(pieces, key, strings.ToUpper(key), key[:rng.IntN(len(key)+1)], key[rng.IntN(len(key)+1):])
	}
	for range 20_000 {
		var b strings.Builder
		for range rng.IntN(4) + 1 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		name := b.String()
		wantI, wantOK := referencePrice(name)
		for try := range 2 {
			if i, ok := LookupPrice(name); ok != wantOK || ok && i != wantI {
				t.Fatalf("LookupPrice(%q), call %d = %d, %v; the rule says %d, %v", name, try+1, i, ok, wantI, wantOK)
			}
		}
	}
}

// A server that sends ever new names does not grow the memo past its bound, and the names past it
// are still priced.
func TestLookupPriceMemoIsBounded(t *testing.T) {
	t.Parallel()
	for i := range maxPriceMemo + 500 {
		name := fmt.Sprintf("unheard-of-model-%d-glm-5.2", i)
		if j, ok := LookupPrice(name); !ok || strings.ToLower(Prices[j].Key) != "glm-5.2" {
			t.Fatalf("LookupPrice(%q) = %d, %v", name, j, ok)
		}
	}
	n := 0
	priceMemo.Range(func(any, any) bool { n++; return true })
	if n > maxPriceMemo {
		t.Fatalf("the memo holds %d names, more than %d", n, maxPriceMemo)
	}
}

func BenchmarkLookupPrice(b *testing.B) {
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("provider-%d/some-model-%d-instruct", i%7, i)
	}
	b.ResetTimer()
	for i := range b.N {
		LookupPrice(names[i%len(names)])
	}
}
