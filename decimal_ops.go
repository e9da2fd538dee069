package infergate

import (
	"errors"
	"fmt"
	"math/big"
)

// ErrDivisionByZero is the error of Decimal.Div by zero.
var ErrDivisionByZero = errors.New("infergate: decimal division by zero")

// Div returns d ÷ x rounded to places decimal places (0 to MaxDecimalScale), half to even: a
// quotient is rarely exact, so the precision is the caller's choice. Dividing by zero returns
// ErrDivisionByZero.
func (d Decimal) Div(x Decimal, places int) (Decimal, error) {
	if x.IsZero() {
		return Decimal{}, ErrDivisionByZero
	}
	if places < 0 || places > MaxDecimalScale {
		return Decimal{}, fmt.Errorf("infergate: decimal division to %d places: must be 0 to %d", places, MaxDecimalScale)
	}
	// d/x = (dm·10^-ds) / (xm·10^-xs); scaled by 10^places that is dm·10^(places+xs) / (xm·10^ds).
	num := d.mantissa()
	num.Mul(num, pow10(int64(places)+int64(x.scale)))
	den := x.mantissa()
	den.Mul(den, pow10(int64(d.scale)))
	quo, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	twice := new(big.Int).Abs(rem)
	twice.Lsh(twice, 1)
	if c := twice.Cmp(new(big.Int).Abs(den)); c > 0 || (c == 0 && quo.Bit(0) == 1) {
		if num.Sign()*den.Sign() < 0 {
			quo.Sub(quo, big.NewInt(1))
		} else {
			quo.Add(quo, big.NewInt(1))
		}
	}
	return newDecimal(quo, int64(places)), nil
}

// Round returns d rounded to places decimal places, half to even (0.125 rounds to 0.12, 0.135 to
// 0.14); a negative places counts as 0. A d with no more places is returned as it is.
func (d Decimal) Round(places int) Decimal {
	places = max(places, 0)
	if int(d.scale) <= places {
		return d
	}
	m := d.mantissa()
	roundHalfEven(m, int64(d.scale)-int64(places))
	return newDecimal(m, int64(places))
}

// Float64 returns the nearest float64 to d, for display and charts. It is lossy: most decimals
// (0.1 among them) have no exact float64, so never compute money with it.
func (d Decimal) Float64() float64 {
	f, _ := d.Rat().Float64()
	return f
}
