package infergate

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustDecimal(t testing.TB, s string) Decimal {
	t.Helper()
	d, err := ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestParseDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"0.000", "0"}, {"000123", "123"}, {"12.50", "12.5"},
		{"0.000125", "0.000125"}, {"-3", "-3"}, {"+7.0", "7"}, {".5", "0.5"}, {"5.", "5"},
		{"1.25e-4", "0.000125"}, {"1.25E+4", "12500"}, {"1e3", "1000"}, {"-1.5e-1", "-0.15"},
		{"123456789012345678901234567890.123456789012345678901234567890", "123456789012345678901234567890.12345678901234567890123456789"},
		{"1e-30", "0.000000000000000000000000000001"},
	}
	for _, tt := range tests {
		d, err := ParseDecimal(tt.in)
		if err != nil {
			t.Errorf("ParseDecimal(%q): %v", tt.in, err)
			continue
		}
		if got := d.String(); got != tt.want {
			t.Errorf("ParseDecimal(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseDecimalRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", " ", "-", ".", "+-1", "1-", "1.2.3", "0x10", "1e", "e5", "1e1001", "1e-1001",
		"NaN", "Inf", "1,5", " 1", "1_000", "1e2.5", "--1"} {
		if d, err := ParseDecimal(in); err == nil {
			t.Errorf("ParseDecimal(%q) = %v, want an error", in, d)
		}
	}
}

func TestDecimalArithmetic(t *testing.T) {
	t.Parallel()
	d := func(s string) Decimal { return mustDecimal(t, s) }
	tests := []struct {
		name string
		got  Decimal
		want string
	}{
		{"0.1+0.2 is exact", d("0.1").Add(d("0.2")), "0.3"},
		{"add across scales", d("1.005").Add(d("2")), "3.005"},
		{"sub to negative", d("0.1").Sub(d("0.25")), "-0.15"},
		{"mul", d("0.000125").Mul(d("3600")), "0.45"},
		{"mul trims zeros", d("2.5").Mul(d("0.4")), "1"},
		{"mul int", d("0.000125").MulInt(3600), "0.45"},
		{"mul int negative", d("1.5").MulInt(-2), "-3"},
		{"zero value add", Decimal{}.Add(d("1.5")), "1.5"},
		{"zero value mul", Decimal{}.Mul(d("1.5")), "0"},
		{"zero value mul int", Decimal{}.MulInt(10), "0"},
	}
	for _, tt := range tests {
		if got := tt.got.String(); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestDecimalIsImmutable(t *testing.T) {
	t.Parallel()
	price := mustDecimal(t, "0.5")
	_ = price.Add(price)
	_ = price.MulInt(7)
	_ = price.Mul(price)
	_ = price.Rat().Add(price.Rat(), big.NewRat(1, 1))
	if price.String() != "0.5" {
		t.Fatalf("operations changed their receiver: %s", price)
	}
}

func TestDecimalCompare(t *testing.T) {
	t.Parallel()
	d := func(s string) Decimal { return mustDecimal(t, s) }
	tests := []struct {
		a, b Decimal
		want int
	}{
		{d("1.5"), d("1.50"), 0}, {d("0.1"), d("0.09"), 1}, {d("-1"), d("0"), -1}, {Decimal{}, d("0.000"), 0},
		{d("100"), d("1e2"), 0}, {d("0.0000000000000000001"), Decimal{}, 1},
	}
	for _, tt := range tests {
		if got := tt.a.Cmp(tt.b); got != tt.want {
			t.Errorf("%s.Cmp(%s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := tt.a.Equal(tt.b); got != (tt.want == 0) {
			t.Errorf("%s.Equal(%s) = %v", tt.a, tt.b, got)
		}
	}
	if !(Decimal{}).IsZero() || !d("-0.00").IsZero() || d("0.01").IsZero() {
		t.Error("IsZero is wrong")
	}
	if d("-2").Sign() != -1 || (Decimal{}).Sign() != 0 || d("2").Sign() != 1 {
		t.Error("Sign is wrong")
	}
	if got := d("0.125").Rat(); got.Cmp(big.NewRat(1, 8)) != 0 {
		t.Errorf("Rat() = %v, want 1/8", got)
	}
}

func TestFromWei(t *testing.T) {
	t.Parallel()
	tests := []struct{ wei, want string }{
		{"125000000000000", "0.000125"}, {"1000000000000000000", "1"}, {"1", "0.000000000000000001"},
		{"0", "0"}, {"123456789012345678901234567890", "123456789012.34567890123456789"},
	}
	for _, tt := range tests {
		got, err := FromWei(tt.wei)
		if err != nil {
			t.Errorf("FromWei(%q): %v", tt.wei, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("FromWei(%q) = %s, want %s", tt.wei, got, tt.want)
		}
	}
	if _, err := FromWei("12wei"); err == nil {
		t.Error("FromWei accepted a non-number")
	}
}

func TestDecimalJSON(t *testing.T) {
	t.Parallel()
	type priced struct {
		Price Decimal  `json:"price"`
		Ptr   *Decimal `json:"ptr,omitempty"`
	}
	tests := []struct {
		in, want string
	}{
		{`{"price":"0.000125"}`, `{"price":"0.000125"}`},
		{`{"price":0.000125}`, `{"price":"0.000125"}`},
		{`{"price":1.25e-4}`, `{"price":"0.000125"}`},
		{`{"price":12345678901234567890123}`, `{"price":"12345678901234567890123"}`},
		{`{"price":null}`, `{"price":"0"}`},
		{`{}`, `{"price":"0"}`},
		{`{"price":"7","ptr":"2.50"}`, `{"price":"7","ptr":"2.5"}`},
	}
	for _, tt := range tests {
		var p priced
		if err := json.Unmarshal([]byte(tt.in), &p); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.in, err)
			continue
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(out)); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, bad := range []string{`{"price":true}`, `{"price":"abc"}`, `{"price":{}}`} {
		var p priced
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("Unmarshal(%s) succeeded, want an error", bad)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, seed := range []string{"0", "-0.000125", "12.50", "1.25e-4", "1E+3", ".5", "5.", "1e1000", "-1e-1000",
		"123456789012345678901234567890.0000", "+", "1.2.3", "0x1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			return
		}
		text := d.String()
		if strings.ContainsAny(text, "eE+") {
			t.Fatalf("String() = %q has an exponent or a plus sign", text)
		}
		back, err := ParseDecimal(text)
		if err != nil {
			t.Fatalf("ParseDecimal(%q) (from %q): %v", text, s, err)
		}
		if back.Cmp(d) != 0 || back.String() != text {
			t.Fatalf("round trip of %q: %q then %q", s, text, back)
		}
		if want, _ := new(big.Rat).SetString(strings.TrimPrefix(s, "+")); want != nil && want.Cmp(d.Rat()) != 0 {
			t.Fatalf("ParseDecimal(%q) = %s, but big.Rat reads %s", s, text, want.FloatString(40))
		}
	})
}

func BenchmarkParseDecimal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDecimal("0.000125000000000000"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBidCost(b *testing.B) {
	bid := RatedBid{PricePerSecond: mor(b, "0.000125")}
	b.ReportAllocs()
	for b.Loop() {
		_ = bid.Cost(3600e9).String()
	}
}

func TestDecimalDivRoundFloat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b   string
		places int
		want   string
	}{
		{"1", "3", 4, "0.3333"},
		{"2", "3", 4, "0.6667"},
		{"-2", "3", 2, "-0.67"},
		{"10", "4", 0, "2"}, // 2.5 to even
		{"14", "4", 0, "4"}, // 3.5 to even
		{"0.000125", "0.000125", 3, "1"},
		{"100", "0.000125", 0, "800000"},
		{"1", "-8", 3, "-0.125"},
	} {
		got, err := mustDecimal(t, tt.a).Div(mustDecimal(t, tt.b), tt.places)
		if err != nil || got.String() != tt.want {
			t.Errorf("%s / %s to %d places = %s, %v; want %s", tt.a, tt.b, tt.places, got, err, tt.want)
		}
	}
	if _, err := mustDecimal(t, "1").Div(Decimal{}, 2); !errors.Is(err, ErrDivisionByZero) {
		t.Errorf("division by zero: %v", err)
	}
	if _, err := mustDecimal(t, "1").Div(mustDecimal(t, "3"), -1); err == nil {
		t.Error("negative places accepted")
	}
	for in, want := range map[string]string{"0.125": "0.12", "0.135": "0.14", "-0.125": "-0.12", "1.5": "1.5", "2.675": "2.68"} {
		if got := mustDecimal(t, in).Round(2); got.String() != want {
			t.Errorf("Round(%s, 2) = %s, want %s", in, got, want)
		}
	}
	if f := mustDecimal(t, "0.000125").Float64(); f != 0.000125 {
		t.Errorf("Float64 = %v", f)
	}
}

// TestDecimalBounds refuses, with a *DecimalError and quickly, the numbers that used to overflow the
// scale or take seconds to parse, and keeps arithmetic on the smallest number bounded: squaring
// 1e-1000 22 times used to wrap the scale, after which String panicked and Cmp ran for minutes.
func TestDecimalBounds(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		strings.Repeat("9", MaxDecimalDigits+1), "0." + strings.Repeat("1", MaxDecimalDigits+1),
		strings.Repeat("7", 1<<22), "1" + strings.Repeat("0", 4<<20), "0.5e-1000", "1e-1001", "1e99999",
		"0." + strings.Repeat("0", MaxDecimalScale) + "1",
	} {
		start := time.Now()
		_, err := ParseDecimal(s)
		var decErr *DecimalError
		if !errors.As(err, &decErr) || len(decErr.Input) > 64 {
			t.Errorf("ParseDecimal(%.20q…) = %v, want a *DecimalError with a short input", s, err)
		}
		if elapsed := time.Since(start); elapsed > time.Second {
			t.Errorf("ParseDecimal(%.20q…) took %v", s, elapsed)
		}
		var p struct{ Price Decimal }
		if err := json.Unmarshal([]byte(`{"Price":"`+s+`"}`), &p); !errors.As(err, &decErr) {
			t.Errorf("UnmarshalJSON(%.20q…) = %v, want a *DecimalError", s, err)
		}
	}
	for _, s := range []string{"1e-1000", "1e1000", "0." + strings.Repeat("0", 999) + "1", strings.Repeat("9", MaxDecimalDigits)} {
		if _, err := ParseDecimal(s); err != nil {
			t.Errorf("ParseDecimal(%.20q…) = %v, want it within the bounds", s, err)
		}
	}
	tiny, _ := ParseDecimal("1e-1000")
	d := tiny
	start := time.Now()
	for range 22 {
		d = d.Mul(d)
	}
	if !d.IsZero() || d.String() != "0" || d.Cmp(tiny) != -1 {
		t.Errorf("1e-1000 squared 22 times = %.20s…, want 0 after rounding at %d places", d.String(), MaxDecimalScale)
	}
	third, _ := ParseDecimal("0." + strings.Repeat("3", 1000))
	if got := third.Mul(third); got.scaleForTest() != MaxDecimalScale || !strings.HasSuffix(got.String(), "1") {
		t.Errorf("0.333…² rounded to %d places, ends %q", got.scaleForTest(), got.String()[len(got.String())-3:])
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("arithmetic took %v", elapsed)
	}
}

// Two equal amounts parsed separately hold different *big.Int values, so == would answer false:
// the amount types must not be comparable at all, making such a comparison a compile error.
func TestAmountsAreNotComparable(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Decimal](), reflect.TypeFor[Money](), reflect.TypeFor[RatedBid](),
		reflect.TypeFor[Balance](), reflect.TypeFor[UsageRecord](),
	} {
		if typ.Comparable() {
			t.Errorf("%s is comparable: == on two equal amounts would be false", typ)
		}
	}
	a, b := mustDecimal(t, "1.50"), mustDecimal(t, "1.5")
	if !a.Equal(b) || a.Cmp(b) != 0 {
		t.Errorf("1.50 and 1.5 are not Equal")
	}
	if got := (Money{}); !got.IsZero() {
		t.Errorf("the zero Money is not zero: %v", got)
	}
}
