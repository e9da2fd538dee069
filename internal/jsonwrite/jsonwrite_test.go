package jsonwrite

import (
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"
)

// FuzzString checks the hand-written string encoder against encoding/json: its output is
// valid JSON that decodes to what encoding/json's own encoding decodes to.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "\n\r\t\b\f\x00\x1f\x7f", "é日本🙂", "\u2028\u2029", "\xff\xfe invalid", "<b>&amp;</b>", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(nil, s)
		var back, want string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("String(%q) = %s, not JSON: %v", s, got, err)
		}
		ref, _ := json.Marshal(s)
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if back != want {
			t.Fatalf("String(%q) decodes to %q, encoding/json's to %q", s, back, want)
		}
	})
}

// TestPlainPrefix puts each byte value at each place of a word of plain bytes, and of bytes that
// borrow in the word-at-a-time search, and holds the count to a byte-by-byte one.
func TestPlainPrefix(t *testing.T) {
	t.Parallel()
	for _, fill := range []string{"abcdefgh", "        ", "!#~~~~~~", "\x1f\x00\"\\\x7f\x80\xff\x20"} {
		for c := range 256 {
			for pos := range 8 {
				w := []byte(fill)
				w[pos] = byte(c)
				want := 0
				for want < 8 && w[want] < utf8.RuneSelf && safeASCII[w[want]] {
					want++
				}
				if got := plainPrefix(string(w)); got != want {
					t.Fatalf("plainPrefix(%q) = %d, want %d", w, got, want)
				}
			}
		}
	}
}

// FuzzNumberFields checks IntField and FloatField against encoding/json: the same text for every
// finite number, and nothing for nil.
func FuzzNumberFields(f *testing.F) {
	for _, v := range []float64{0, -0.0, 1, 0.1, 1e-6, 1e-7, 1.5e-9, 1e20, 1e21, 123456789.25, -3.5e300, math.SmallestNonzeroFloat64} {
		f.Add(v, int64(v))
	}
	f.Fuzz(func(t *testing.T, v float64, n int64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		want, _ := json.Marshal(v)
		if got := FloatField(nil, "x", &v); string(got) != `,"x":`+string(want) {
			t.Fatalf("FloatField(%v) = %s, encoding/json writes %s", v, got, want)
		}
		i := int(n)
		want, _ = json.Marshal(i)
		if got := IntField(nil, "n", &i); string(got) != `,"n":`+string(want) {
			t.Fatalf("IntField(%d) = %s, encoding/json writes %s", i, got, want)
		}
		if string(FloatField([]byte("{"), "x", nil)) != "{" || len(IntField(nil, "n", nil)) != 0 || len(Field(nil, "s", "")) != 0 {
			t.Fatal("an absent value wrote something")
		}
	})
}
