package infergate

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestFunctionCharsAsTheRegexp checks functionChars against the regular expression it stands for,
// on names of letters, digits, punctuation, other scripts and invalid UTF-8.
func TestFunctionCharsAsTheRegexp(t *testing.T) {
	t.Parallel()
	notFunctionChars := regexp.MustCompile(`[^a-zA-Z0-9_-]+`)
	r := rand.New(rand.NewPCG(*objectSeed, 14))
	pieces := []string{"a", "Z", "9", "_", "-", ".", "[", "]", " ", "é", "世", "\xff", "\xe4\xb8", "propValue", "map[string]int"}
	for range 5000 {
		var name string
		for range r.IntN(8) {
			name += pieces[r.IntN(len(pieces))]
		}
		if got, want := functionChars(name), notFunctionChars.ReplaceAllString(name, "_"); got != want {
			t.Fatalf("functionChars(%q) = %q, want %q", name, got, want)
		}
	}
}
