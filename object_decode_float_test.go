package infergate

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestEiselLemireAgreesWithStrconv compares eiselLemire with strconv.ParseFloat on random digits
// of every length a uint64 holds, powers of ten across the table and beyond, and the numbers next
// to halfway between two floats, where rounding is hardest.
func TestEiselLemireAgreesWithStrconv(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(*objectSeed, 11))
	check := func(man uint64, exp10 int, neg bool) bool {
		text := strconv.FormatUint(man, 10) + "e" + strconv.Itoa(exp10)
		if neg {
			text = "-" + text
		}
		want, err := strconv.ParseFloat(text, 64)
		got, ok := eiselLemire(man, exp10, neg)
		if !ok {
			return false
		}
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: eiselLemire gives %v (%x), strconv %v (%x, %v)", text, got, math.Float64bits(got), want, math.Float64bits(want), err)
		}
		return true
	}
	decided := 0
	const n = 200_000
	for range n {
		man := r.Uint64() >> r.IntN(64)
		if r.IntN(4) == 0 {
			man %= 1e19 // what a number's 19 digits make
		}
		if check(man, r.IntN(maxPow10Exp-minPow10Exp+21)+minPow10Exp-10, r.IntN(2) == 0) {
			decided++
		}
	}
	// Halfway between two floats: a float's mantissa with one more bit set, and its neighbours.
	for range 20_000 {
		half := (uint64(1)<<53|r.Uint64N(1<<53))<<1 | 1
		for _, man := range []uint64{half - 1, half, half + 1} {
			for _, shift := range []int{0, 1, 5, 10} {
				check(man<<shift, 0, false)
			}
		}
		check(half*5, -1, false)
	}
	if decided < n*7/10 {
		t.Fatalf("eiselLemire decided %d of %d", decided, n)
	}
	for _, c := range []struct {
		man   uint64
		exp10 int
	}{{0, 0}, {1, 0}, {9007199254740993, 0}, {1, -64}, {math.MaxUint64, 64}, {17976931348623157, 292}, {1, 400}, {22250738585072011, -324}} {
		check(c.man, c.exp10, false)
		check(c.man, c.exp10, true)
	}
}
