package chunkmem

import "testing"

// FuzzEqualTwins compares strings that share memory, that do not, and pieces of one another with
// Equal and equalSafe: they must answer alike, and as == does.
func FuzzEqualTwins(f *testing.F) {
	f.Add("chatcmpl-1", "chatcmpl-1", uint8(0), uint8(3))
	f.Add("", "", uint8(0), uint8(0))
	f.Add("abcabc", "abc", uint8(3), uint8(3))
	f.Fuzz(func(t *testing.T, a, b string, from, n uint8) {
		// b's bytes in a's memory, a piece of a, a copy of a and a itself.
		joined := a + b
		pieces := []string{a, b, joined[:len(a)], joined[len(a):], string([]byte(a))}
		if i, j := int(from), int(from)+int(n); j <= len(a) {
			pieces = append(pieces, a[i:j], a[:j-i])
		}
		for _, x := range pieces {
			for _, y := range pieces {
				if got, safe := Equal(x, y), equalSafe(x, y); got != safe || got != (x == y) {
					t.Fatalf("Equal(%q, %q) = %v, equalSafe %v", x, y, got, safe)
				}
			}
		}
	})
}
