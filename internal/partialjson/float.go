package partialjson

import "encoding/binary"

// A float64 field's number whose digits and power of ten are both exact in a float64 is read here
// rather than by strconv.ParseFloat, whose general reader (bases, underscores, special values)
// costs more than the rest: one rounding of exact operands gives strconv's value. Any other number
// goes to strconv, which rounds what needs more than that correctly.

// readFloat is strconv.ParseFloat(text, 64) for a JSON number (valid: the parser checked it) whose
// digits, after their leading zeros, make an integer of at most 2^53 and whose power of ten is at
// most 22 either way; ok is false for any other number.
func readFloat(text []byte) (float64, bool) {
	i, neg := 0, text[0] == '-'
	if neg {
		i++
	}
	var m uint64
	count, exp := 0, 0 // count: digits from the first that is not zero
	i, m, count = readDigits(text, i, m, count)
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
		at := i
		i, m, count = readDigits(text, i, m, count)
		exp -= i - at
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
	if m > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	return exactFloat(m, exp, neg), true
}

// readDigits reads the decimal digits of text from i on into m, counting those from the first that is
// not zero, and returns where they end.
func readDigits(text []byte, i int, m uint64, count int) (int, uint64, int) {
	for ; i < len(text); i++ {
		c := text[i] - '0'
		if c > 9 {
			break
		}
		if m = m*10 + uint64(c); m != 0 {
			count++
		}
	}
	return i, m, count
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

// smallInt is the value of a JSON number without fraction or exponent, of at most 18 digits (which
// an int64 holds); ok is false for any other.
func smallInt(text []byte) (int64, bool) {
	start := 0
	if text[0] == '-' {
		start = 1
	}
	end, m, count := readDigits(text, start, 0, 0)
	if end == start || end != len(text) || count > 18 {
		return 0, false
	}
	if start == 1 {
		return -int64(m), true
	}
	return int64(m), true
}
