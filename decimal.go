package infergate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is an exact decimal number: the amount of a Money, which adds the currency. Unlike
// float64 it never rounds, so 0.1 + 0.2 is exactly 0.3 and a price times a duration is the exact
// cost.
//
// The zero value is 0 and ready to use. A Decimal is immutable: every operation returns a new value,
// so Decimals can be copied and shared freely. Compare them with Cmp or Equal: == does not compile,
// as two equal amounts parsed separately would never be ==. It encodes to JSON as a string
// ("0.000125") so that no JSON reader turns it into a float, and decodes from a JSON string or
// number.
type Decimal struct {
	_        [0]func() // makes == a compile error: equal values hold different *big.Int
	unscaled *big.Int  // nil means 0; never modified once the Decimal is built
	scale    int32     // digits after the point; the value is unscaled × 10^-scale
}

// Bounds of a Decimal. They are far beyond any amount of money, and keep a hostile number from a
// server ("1e-999999999", a million digits) from costing memory or minutes of CPU.
const (
	// MaxDecimalDigits is the most significant digits ParseDecimal reads in a number (leading and
	// trailing zeros aside).
	MaxDecimalDigits = 1000
	// MaxDecimalScale is the most decimal places a Decimal holds. ParseDecimal refuses a number with
	// more; arithmetic whose exact result has more (a product of two tiny amounts, say) rounds it to
	// MaxDecimalScale places, half to even.
	MaxDecimalScale = 1000
	// maxDecimalExponent bounds the exponent ParseDecimal accepts, so that "1e999999999" cannot make
	// it allocate gigabytes.
	maxDecimalExponent = 1000
	// maxDecimalText bounds the text ParseDecimal reads: room for what String writes of any Decimal
	// it parsed (up to MaxDecimalDigits digits and 1000 zeros on either side of the point).
	maxDecimalText = 3*MaxDecimalDigits + 16
)

// DecimalError is a number ParseDecimal (or a Decimal's UnmarshalJSON) refused: not a decimal
// number, longer than 3,016 bytes, or beyond MaxDecimalDigits, MaxDecimalScale or an exponent of
// ±1000.
type DecimalError struct {
	Input  string // the text refused, cut to its first 40 bytes
	Reason string // what is wrong with it, e.g. "too many digits"
}

// Error quotes the start of the input and says what is wrong with it.
func (e *DecimalError) Error() string {
	return fmt.Sprintf("infergate: parsing decimal %q: %s", e.Input, e.Reason)
}

func decimalError(input, format string, args ...any) *DecimalError {
	if len(input) > 40 {
		input = input[:40] + "…"
	}
	return &DecimalError{Input: input, Reason: fmt.Sprintf(format, args...)}
}

// weiPerTokenDigits is the number of decimal places between wei and the network's token.
const weiPerTokenDigits = 18

var bigTen = big.NewInt(10)

// ParseDecimal reads a decimal number such as "0.000125", "-3", "12.50" or, as JSON numbers may be
// written, "1.25e-4", in time linear in its length. It returns a *DecimalError for text that is not
// a number, more than MaxDecimalDigits significant digits, more than MaxDecimalScale decimal places,
// or an exponent beyond ±1000.
func ParseDecimal(s string) (Decimal, error) {
	// Leading and trailing zeros, sign, point and exponent aside, the text is its digits: a longer
	// one is refused before any work that grows faster than its length.
	if len(s) > maxDecimalText {
		return Decimal{}, decimalError(s, "longer than %d bytes", maxDecimalText)
	}
	mantissa, exponent, err := splitExponent(s)
	if err != nil {
		return Decimal{}, decimalError(s, "%v", err)
	}
	negative := strings.HasPrefix(mantissa, "-")
	mantissa = strings.TrimLeft(mantissa, "+-")
	whole, fraction, _ := strings.Cut(mantissa, ".")
	digits := whole + fraction
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return Decimal{}, decimalError(s, "not a decimal number")
	}
	if len(strings.Trim(digits, "0")) > MaxDecimalDigits {
		return Decimal{}, decimalError(s, "more than %d significant digits", MaxDecimalDigits)
	}
	scale := int64(len(fraction)) - exponent
	// Trailing zeros go before the digits become a big.Int, where removing them costs a division each.
	for scale > 0 && len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits, scale = digits[:len(digits)-1], scale-1
	}
	if scale > MaxDecimalScale && strings.Trim(digits, "0") != "" {
		return Decimal{}, decimalError(s, "more than %d decimal places", MaxDecimalScale)
	}
	unscaled, _ := new(big.Int).SetString(digits, 10)
	if negative {
		unscaled.Neg(unscaled)
	}
	return newDecimal(unscaled, scale), nil
}

// splitExponent separates "1.5e-3" into "1.5" and -3, checking the sign and the exponent's range.
func splitExponent(s string) (string, int64, error) {
	mantissa, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if strings.Count(mantissa, ".") > 1 || strings.LastIndexAny(mantissa, "+-") > 0 {
		return "", 0, fmt.Errorf("not a decimal number")
	}
	if !hasExp {
		return mantissa, 0, nil
	}
	e, err := strconv.ParseInt(exp, 10, 32)
	if err != nil || e > maxDecimalExponent || e < -maxDecimalExponent {
		return "", 0, fmt.Errorf("exponent %.20q is not an integer within ±%d", exp, maxDecimalExponent)
	}
	return mantissa, e, nil
}

// newDecimal builds unscaled × 10^-scale in its canonical form: no trailing zeros after the point,
// and no negative scale. It takes ownership of unscaled.
func newDecimal(unscaled *big.Int, scale int64) Decimal {
	if scale > MaxDecimalScale {
		roundHalfEven(unscaled, scale-MaxDecimalScale)
		scale = MaxDecimalScale
	}
	if unscaled.Sign() == 0 {
		return Decimal{}
	}
	if scale < 0 {
		unscaled.Mul(unscaled, pow10(-scale))
		scale = 0
	}
	var quo, rem big.Int
	for scale > 0 {
		quo.QuoRem(unscaled, bigTen, &rem)
		if rem.Sign() != 0 {
			break
		}
		unscaled.Set(&quo)
		scale--
	}
	return Decimal{unscaled: unscaled, scale: int32(scale)}
}

// roundHalfEven divides n by 10^places in place, rounding half to even.
func roundHalfEven(n *big.Int, places int64) {
	divisor := pow10(places)
	var rem big.Int
	n.QuoRem(n, divisor, &rem)
	twice := new(big.Int).Abs(&rem)
	switch twice.Lsh(twice, 1).Cmp(divisor) {
	case 1:
	case 0:
		if n.Bit(0) == 0 {
			return
		}
	default:
		return
	}
	if rem.Sign() < 0 {
		n.Sub(n, big.NewInt(1))
	} else {
		n.Add(n, big.NewInt(1))
	}
}

func pow10(n int64) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(n), nil)
}

// FromWei converts an amount in wei, given as an integer string such as "125000000000000", to tokens
// (10^18 wei = 1 token): FromWei("125000000000000") is 0.000125. It refuses what ParseDecimal
// refuses, and rounds beyond MaxDecimalScale places as Mul does.
func FromWei(wei string) (Decimal, error) {
	d, err := ParseDecimal(wei)
	if err != nil {
		return Decimal{}, err
	}
	return newDecimal(d.mantissa(), int64(d.scale)+weiPerTokenDigits), nil
}

// mantissa returns a copy of the unscaled value, safe to modify.
func (d Decimal) mantissa() *big.Int {
	if d.unscaled == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(d.unscaled)
}

// rescaled returns the unscaled value expressed with the given, larger or equal, scale.
func (d Decimal) rescaled(scale int32) *big.Int {
	m := d.mantissa()
	if scale > d.scale {
		m.Mul(m, pow10(int64(scale-d.scale)))
	}
	return m
}

// Add returns d + x.
func (d Decimal) Add(x Decimal) Decimal {
	scale := max(d.scale, x.scale)
	sum := d.rescaled(scale)
	sum.Add(sum, x.rescaled(scale))
	return newDecimal(sum, int64(scale))
}

// Sub returns d - x.
func (d Decimal) Sub(x Decimal) Decimal {
	scale := max(d.scale, x.scale)
	diff := d.rescaled(scale)
	diff.Sub(diff, x.rescaled(scale))
	return newDecimal(diff, int64(scale))
}

// Mul returns d × x, exactly while the product has at most MaxDecimalScale decimal places and
// rounded there, half to even, beyond.
func (d Decimal) Mul(x Decimal) Decimal {
	product := d.mantissa()
	product.Mul(product, x.mantissa())
	return newDecimal(product, int64(d.scale)+int64(x.scale))
}

// MulInt returns d × n, e.g. a price per second times a number of seconds.
func (d Decimal) MulInt(n int64) Decimal {
	product := d.mantissa()
	product.Mul(product, big.NewInt(n))
	return newDecimal(product, int64(d.scale))
}

// Cmp compares d and x: -1 if d < x, 0 if they are equal, +1 if d > x.
func (d Decimal) Cmp(x Decimal) int {
	scale := max(d.scale, x.scale)
	return d.rescaled(scale).Cmp(x.rescaled(scale))
}

// Equal reports whether d and x are the same number, whatever their written form ("1.50" and "1.5"
// are equal). It also lets go-cmp compare structs holding Decimals.
func (d Decimal) Equal(x Decimal) bool { return d.Cmp(x) == 0 }

// IsZero reports whether d is 0.
func (d Decimal) IsZero() bool { return d.unscaled == nil || d.unscaled.Sign() == 0 }

// Sign returns -1, 0 or +1 for a negative, zero or positive d.
func (d Decimal) Sign() int {
	if d.unscaled == nil {
		return 0
	}
	return d.unscaled.Sign()
}

// Rat returns d as an exact fraction, for arithmetic that Decimal does not offer.
func (d Decimal) Rat() *big.Rat {
	return new(big.Rat).SetFrac(d.mantissa(), pow10(int64(d.scale)))
}

// String writes d in plain decimal notation with no exponent and no needless zeros: "0.000125",
// "12.5", "-3", "0".
func (d Decimal) String() string {
	if d.IsZero() {
		return "0"
	}
	digits := new(big.Int).Abs(d.unscaled).String()
	var b strings.Builder
	if d.unscaled.Sign() < 0 {
		b.WriteByte('-')
	}
	scale := int(d.scale)
	if scale == 0 {
		b.WriteString(digits)
		return b.String()
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	point := len(digits) - scale
	b.WriteString(digits[:point])
	b.WriteByte('.')
	b.WriteString(digits[point:])
	return b.String()
}

// MarshalJSON writes d as a JSON string, so that readers do not round it through a float.
func (d Decimal) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// JSONSchema describes the JSON a Decimal writes, a string of decimal digits ("12.50", "-0.000125"),
// for SchemaFor: tools and typed answers ask the model for amounts in that form.
func (Decimal) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","pattern":"^-?[0-9]+(\\.[0-9]+)?$"}`)
}

// UnmarshalJSON reads a JSON string or number. null leaves d unchanged.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	text, ok, err := numberText(b)
	if err != nil || !ok {
		return err
	}
	parsed, err := ParseDecimal(text)
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// numberText returns the text of a JSON number or string, unquoted. ok is false for null.
func numberText(b []byte) (text string, ok bool, err error) {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return "", false, nil
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &text); err != nil {
			return "", false, err
		}
		return strings.TrimSpace(text), true, nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return "", false, fmt.Errorf("infergate: %s is neither a number nor a string", b)
	}
	return n.String(), true, nil
}

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
