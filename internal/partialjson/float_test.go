package partialjson

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// randomNumber is a JSON number of random digits, fraction and exponent, at times beyond what an
// integer or a float64 holds exactly.
func randomNumber(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteByte('-')
	}
	if rng.IntN(5) == 0 {
		b.WriteByte('0')
	} else {
		b.WriteString(strconv.FormatUint(1+rng.Uint64N(math.MaxUint64>>rng.IntN(64)), 10))
	}
	if rng.IntN(3) == 0 {
		b.WriteByte('.')
		for range 1 + rng.IntN(20) {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	if rng.IntN(4) == 0 {
		b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[rng.IntN(5)])
		b.WriteString(strconv.Itoa(rng.IntN([]int{10, 30, 400, 100000}[rng.IntN(4)])))
	}
	return b.String()
}

// readFloat reads a number only when it gets strconv's value, and then gets it; numbers of up to
// 15 digits and a small power of ten, which a float64 field mostly meets, it reads.
func TestReadFloatIsStrconvs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 9))
	read := 0
	check := func(text string) {
		want, err := strconv.ParseFloat(text, 64)
		got, ok := readFloat([]byte(text))
		if !ok {
			return
		}
		read++
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: readFloat %v, strconv %v (%v)", text, got, want, err)
		}
	}
	const n = 300000
	for i := range n {
		if i%2 == 0 {
			check(randomNumber(rng))
			continue
		}
		// Up to 16 digits and a power of ten within 22 either way: mostly the exact case.
		m := strconv.FormatUint(rng.Uint64N(1e16)+1, 10)
		cut := 1 + rng.IntN(len(m))
		check(fmt.Sprintf("%s.%se%d", m[:cut], m[cut:], rng.IntN(40)-20))
	}
	if read < n/2 {
		t.Fatalf("readFloat read %d numbers of %d", read, n)
	}
	for _, text := range []string{"0", "-0", "0.1", "9007199254740992", "9007199254740993", "1e22", "1e23", "123456789e-22",
		"-5E+2", "0e9999", "-0.0e-5", "1.7976931348623157e308", "4.9e-324", "2.2250738585072014e-308", "0.30000000000000004"} {
		want, _ := strconv.ParseFloat(text, 64)
		if got, ok := readFloat([]byte(text)); ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: readFloat %v, strconv %v", text, got, want)
		}
	}
}

// FuzzReadFloat: for any JSON number, readFloat gets strconv's value or leaves it to strconv.
func FuzzReadFloat(f *testing.F) {
	for _, s := range []string{"0", "-0.0e-5", "0.30000000000000004", "124.33333333333333", "1e22", "9007199254740993",
		"0.000000000000000000001234", "1.7976931348623157e308", "4.9e-324", "123456789012345678901234567890"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if text == "" || !json.Valid([]byte(text)) || (text[0] != '-' && (text[0] < '0' || text[0] > '9')) {
			return
		}
		got, ok := readFloat([]byte(text))
		want, err := strconv.ParseFloat(text, 64)
		if ok && (err != nil || math.Float64bits(got) != math.Float64bits(want)) {
			t.Fatalf("%s: readFloat %v, strconv %v (%v)", text, got, want, err)
		}
	})
}

// smallInt reads an integer only when it gets strconv's value, and reads every one of up to 18 digits.
func TestSmallIntIsStrconvs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 11))
	for range 100000 {
		text := randomNumber(rng)
		want, err := strconv.ParseInt(text, 10, 64)
		got, ok := smallInt([]byte(text))
		digits := strings.TrimPrefix(text, "-")
		if short := err == nil && len(digits) <= 18; ok != short || ok && got != want {
			t.Fatalf("%s: smallInt %d, %v; strconv %d, %v", text, got, ok, want, err)
		}
	}
}
