package typed

import (
	"math/big"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestFloatAsStrconv holds the numbers float works out to strconv.ParseFloat's values: digits of
// every length up to 19 with fractions of every length, as a float64 printed in full has, and
// numbers exactly halfway between two float64s, which round to the even one.
func TestFloatAsStrconv(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(43))
	check := func(text string) {
		t.Helper()
		d := plainDecoder{s: text}
		num := d.numberText()
		if num.text != text {
			t.Fatalf("%q: read as %q", text, num.text)
		}
		want, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := num.float(); ok && got != want {
			t.Fatalf("%q: %v (%b), strconv: %v (%b)", text, got, got, want, want)
		}
	}
	for range scaled(200_000) {
		digits := make([]byte, 1+rng.Intn(19))
		for i := range digits {
			digits[i] = '0' + byte(rng.Intn(10))
		}
		if digits[0] == '0' && len(digits) > 1 {
			digits[0] = '1' + byte(rng.Intn(9))
		}
		text := string(digits)
		if point := rng.Intn(len(digits) + 1); point < len(digits) {
			text = text[:point] + "." + text[point:]
			if point == 0 {
				text = "0" + text
			}
		}
		if rng.Intn(4) == 0 {
			text = "-" + text
		}
		check(text)
		check(strconv.FormatFloat(rng.ExpFloat64()*float64(int64(1)<<rng.Intn(60)), 'f', -1, 64))
	}
	// Halfway: an odd 54-bit integer over 2^j, written as m/10^k with m = odd·5^k·2^(k-j).
	five := big.NewInt(5)
	for range scaled(100_000) {
		odd := big.NewInt(rng.Int63n(1<<53) | 1<<53 | 1)
		k := 1 + rng.Intn(3)
		j := rng.Intn(k + 1)
		m := new(big.Int).Mul(odd, new(big.Int).Exp(five, big.NewInt(int64(k)), nil))
		m.Lsh(m, uint(k-j))
		text := m.String()
		if len(text) > 19 {
			continue
		}
		text = strings.TrimPrefix(text[:len(text)-k]+"."+text[len(text)-k:], ".")
		if text[0] == '.' {
			text = "0" + text
		}
		check(text)
	}
	check("9007199254740993.0")
	check("9999999999999999999.0")
	check("0.9999999999999999999")
	check("1844674407370955161.5")
}
