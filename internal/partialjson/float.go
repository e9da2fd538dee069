package partialjson

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// A float64 field's number is read here rather than by strconv.ParseFloat, whose general reader
// (bases, underscores, special values) costs more than the rest: to the same value, since both
// round correctly, and only where that is certain. Any other number goes to strconv.

// readFloat is strconv.ParseFloat(text, 64) for a JSON number (valid: the parser checked it) of at
// most 19 digits after its leading zeros (those of a fraction may count), with a power of ten in
// powTen's range; ok is false for any other number, and for one too close to a tie to decide with
// 128 bits (strconv decides those).
func readFloat(text []byte) (float64, bool) {
	i, neg := 0, text[0] == '-'
	if neg {
		i++
	}
	var m uint64
	count, exp := 0, 0 // count: digits from the first that is not zero
	for ; i < len(text); i++ {
		c := text[i] - '0'
		if c > 9 {
			break
		}
		if m = m*10 + uint64(c); m != 0 {
			count++
		}
	}
	if i < len(text) && text[i] == '.' {
		// Eight at a time while eight digits follow, all counted: a leading zero counted as a digit
		// only sends a number with more zeros than 19 digits leave room for to strconv.
		for i++; i+8 <= len(text); i += 8 {
			v, ok := eightDigits(binary.LittleEndian.Uint64(text[i:]))
			if !ok {
				break
			}
			m, count, exp = m*1e8+v, count+8, exp-8
		}
		for ; i < len(text); i++ {
			c := text[i] - '0'
			if c > 9 {
				break
			}
			if m = m*10 + uint64(c); m != 0 {
				count++
			}
			exp--
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		if i++; i == len(text) {
			return 0, false
		}
		eneg := text[i] == '-'
		if text[i] == '-' || text[i] == '+' {
			i++
		}
		e, at := 0, i
		for ; i < len(text) && '0' <= text[i] && text[i] <= '9'; i++ {
			if i-at >= 4 {
				return 0, false
			}
			e = e*10 + int(text[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(text) || count > 19 { // past 19 digits m has wrapped
		return 0, false
	}
	if m <= 1<<53 && -22 <= exp && exp <= 22 {
		return exactFloat(m, exp, neg), true
	}
	return eiselLemire(m, exp, neg)
}

// eightDigits is the value of eight ASCII digits read as a little-endian word; ok is false when
// a byte is not a digit.
func eightDigits(w uint64) (uint64, bool) {
	if ((w+0x4646464646464646)|(w-0x3030303030303030))&0x8080808080808080 != 0 {
		return 0, false
	}
	w -= 0x3030303030303030
	w = w*10 + w>>8 // pairs of digits in every other byte
	w = ((w&0x000000FF000000FF)*(100+1000000<<32) + (w>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
	return w, true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat is m×10^exp for m at most 2^53 and exp at most 22 either way: both are exact in a
// float64, so one multiplication or division rounds their product as strconv rounds the text.
func exactFloat(m uint64, exp int, neg bool) float64 {
	f := float64(m)
	if exp < 0 {
		f /= exactPow10[-exp]
	} else {
		f *= exactPow10[exp]
	}
	if neg {
		f = -f
	}
	return f
}

// powTenMin and powTenMax bound the powers of ten readFloat reads without strconv: those a JSON
// number mostly has.
const powTenMin, powTenMax = -40, 40

// powTen holds 10^e for e from powTenMin to powTenMax as 128 bits rounded down, the top one set
// (hi, lo): the table of the Eisel-Lemire algorithm. It is worked out when first needed, not when
// a program starts.
var powTen = sync.OnceValue(func() *[powTenMax - powTenMin + 1][2]uint64 {
	var t [powTenMax - powTenMin + 1][2]uint64
	p, d, word := big.NewInt(1), new(big.Int), new(big.Int).SetUint64(math.MaxUint64)
	ten := big.NewInt(10)
	for e := 0; e <= powTenMax; e++ {
		n := p.BitLen()
		// 10^e with 128 bits: shifted up, or down (rounding down) past 128.
		if n <= 128 {
			d.Lsh(p, uint(128-n))
		} else {
			d.Rsh(p, uint(n-128))
		}
		t[e-powTenMin] = split128(d, word)
		if e > 0 && -e >= powTenMin {
			// 2^(127+n)/10^e, where 10^e has n bits, lies between 2^127 and 2^128.
			d.Lsh(d.SetInt64(1), uint(127+n))
			t[-e-powTenMin] = split128(d.Quo(d, p), word)
		}
		p.Mul(p, ten)
	}
	return &t
})

// split128 is d, of 128 bits, as its high and low words; word is 2^64-1.
func split128(d, word *big.Int) [2]uint64 {
	lo := new(big.Int).And(d, word).Uint64()
	return [2]uint64{new(big.Int).Rsh(d, 64).Uint64(), lo}
}

// eiselLemire is m×10^exp correctly rounded, by the Eisel-Lemire algorithm as strconv has it; ok
// is false when the 128-bit product cannot tell which way to round, or exp is out of powTen's
// range, or the result is not a normal float64.
func eiselLemire(m uint64, exp int, neg bool) (float64, bool) {
	if m == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if exp < powTenMin || exp > powTenMax {
		return 0, false
	}
	pow := &powTen()[exp-powTenMin]
	// Normalization.
	clz := bits.LeadingZeros64(m)
	m <<= uint(clz)
	const bias = 1023
	exp2 := uint64(1+(exp*108853)>>15+63+bias) - uint64(clz) // (exp*108853)>>15 is ⌊exp×log2(10)⌋ for |exp| ≤ 500
	// Multiplication.
	xHi, xLo := bits.Mul64(m, pow[0])
	// Wider approximation.
	if xHi&0x1FF == 0x1FF && xLo+m < m {
		yHi, yLo := bits.Mul64(m, pow[1])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+m < m {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}
	// Shifting to 54 bits.
	msb := xHi >> 63
	mant := xHi >> (msb + 9)
	exp2 -= 1 ^ msb
	// Half-way ambiguity.
	if xLo == 0 && xHi&0x1FF == 0 && mant&3 == 1 {
		return 0, false
	}
	// From 54 to 53 bits.
	mant += mant & 1
	mant >>= 1
	if mant>>53 > 0 {
		mant >>= 1
		exp2++
	}
	if exp2-1 >= 0x7FF-1 { // subnormal, infinite or NaN
		return 0, false
	}
	b := exp2<<52 | mant&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
