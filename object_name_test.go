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

// FuzzFunctionName holds isFunctionName to the regular expression it stands for.
func FuzzFunctionName(f *testing.F) {
	for _, name := range []string{"get_weather", "a", "", "a-b_C9", "a b", "é", "\xff", "a\n", "\na", "propValue$",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		f.Add(name)
	}
	functionName := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := isFunctionName(name), functionName.MatchString(name); got != want {
			t.Fatalf("isFunctionName(%q) = %v, the regexp says %v", name, got, want)
		}
	})
}
