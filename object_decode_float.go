package infergate

import (
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// The powers of ten eiselLemire works with: the numbers of a model's answer have small exponents,
// and the others go to strconv.
const (
	minPow10Exp = -64
	maxPow10Exp = 64
)

// pow10Mantissas holds, for each power of ten from minPow10Exp, the first 128 bits of its binary
// expansion (hi, lo), rounded down: 10^q is that times 2 to the power floor(q·log2(10))-127.
var pow10Mantissas = sync.OnceValue(func() *[maxPow10Exp - minPow10Exp + 1][2]uint64 {
	t := new([maxPow10Exp - minPow10Exp + 1][2]uint64)
	mask := new(big.Int).SetUint64(math.MaxUint64)
	for q := minPow10Exp; q <= maxPow10Exp; q++ {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(q, -q))), nil)
		m := new(big.Int)
		if q >= 0 {
			m.Set(p)
		} else {
			// 2^k / 10^-q with k large enough that the quotient has more than 128 bits.
			m.Lsh(big.NewInt(1), uint(128+p.BitLen()))
			m.Quo(m, p)
		}
		if n := m.BitLen(); n > 128 {
			m.Rsh(m, uint(n-128))
		} else {
			m.Lsh(m, uint(128-n))
		}
		t[q-minPow10Exp] = [2]uint64{new(big.Int).Rsh(m, 64).Uint64(), new(big.Int).And(m, mask).Uint64()}
	}
	return t
})

// eiselLemire returns the float64 nearest to man × 10^exp10 (ties to even), as strconv.ParseFloat
// rounds the decimal, by the Eisel-Lemire algorithm (as strconv has it); ok is false when the
// product is too close to halfway between two floats to tell with 128 bits, or outside the range
// of normal floats or of the table, and then the caller asks strconv.
func eiselLemire(man uint64, exp10 int, neg bool) (f float64, ok bool) {
	if man == 0 {
		if neg {
			f = math.Copysign(0, -1)
		}
		return f, true
	}
	if exp10 < minPow10Exp || exp10 > maxPow10Exp {
		return 0, false
	}
	pow := &pow10Mantissas()[exp10-minPow10Exp]
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	const bias = 1023
	retExp2 := uint64(217706*exp10>>16+64+bias) - uint64(clz)
	xHi, xLo := bits.Mul64(man, pow[0])
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		// The product's low bits could carry into the ones kept: look at the next 64 bits.
		yHi, yLo := bits.Mul64(man, pow[1])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}
	msb := xHi >> 63
	mantissa := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb
	if xLo == 0 && xHi&0x1FF == 0 && mantissa&3 == 1 {
		return 0, false // halfway: the truncated bits cannot say which way
	}
	mantissa += mantissa & 1
	mantissa >>= 1
	if mantissa>>53 > 0 {
		mantissa >>= 1
		retExp2++
	}
	if retExp2-1 >= 0x7FF-1 {
		return 0, false // subnormal, or out of range
	}
	b := retExp2<<52 | mantissa&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
