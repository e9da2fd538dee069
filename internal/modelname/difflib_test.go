package modelname

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// CloseMatches gives what Python's difflib.get_close_matches gives (the wants are Python 3's
// output): ties in order of the greater string, code points compared, elements popular in a long
// word matched only by extension, and the ratio of two empty strings 1.
func TestCloseMatchesIsDifflibs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		word          string
		possibilities []string
		n             int
		cutoff        float64
		want          []string
	}{
		{"abcd", []string{"abce", "abcf", "abcg", "xbcd"}, 3, 0.6, []string{"xbcd", "abcg", "abcf"}},
		{"ünïcode", []string{"unicode", "ünïcodé", "ünï"}, 5, 0.5, []string{"ünïcodé", "unicode", "ünï"}},
		{strings.Repeat("a", 150) + strings.Repeat("b", 60),
			[]string{strings.Repeat("a", 100) + strings.Repeat("b", 100), strings.Repeat("b", 210), strings.Repeat("ab", 105)}, 5, 0.3,
			[]string{strings.Repeat("a", 100) + strings.Repeat("b", 100)}},
		{"", []string{"", "a"}, 5, 0, []string{"", "a"}},
		{"llama", nil, 5, 0.72, []string{}},
		{"model-x", []string{"model-y", "model-z", "models-x", "mode-x"}, 5, 0.72, []string{"models-x", "mode-x", "model-z", "model-y"}},
		{"llama-3.3-70b-instruct", []string{"llama-3.2-3b", "llama-3.3-70b", "llama-3.3-70b:web"}, 5, 0.72, []string{"llama-3.3-70b"}},
	} {
		if got := CloseMatches(c.word, c.possibilities, c.n, c.cutoff); !slices.Equal(got, c.want) {
			t.Errorf("CloseMatches(%.20q, %.3q, %d, %v) = %q, want %q", c.word, c.possibilities, c.n, c.cutoff, got, c.want)
		}
	}
}

// Whatever the strings, matches are possibilities, the ratio is within [0, 1] and below its two
// quick bounds, and nothing panics; a string short enough for no element to be popular matches
// itself fully.
func FuzzCloseMatches(f *testing.F) {
	f.Add("llama-3.3-70b-instruct", "llama-3.3-70b", "llama-3.3-70b:web", 0.72)
	f.Add(strings.Repeat("ab", 150), strings.Repeat("a", 300), "", 0.0)
	f.Add("\xff\xfe", "ü", "\x00", 1.0)
	f.Fuzz(func(t *testing.T, word, p1, p2 string, cutoff float64) {
		if len(word) > 300 || len(p1) > 300 || len(p2) > 300 {
			return // quadratic in the lengths, as difflib is; the gateway's names are short
		}
		got := CloseMatches(word, []string{p1, p2, word}, 5, cutoff)
		for _, g := range got {
			if g != p1 && g != p2 && g != word {
				t.Fatalf("%q is not a possibility", g)
			}
		}
		if utf8.RuneCountInString(word) < 200 && cutoff <= 1 && !slices.Contains(got, word) {
			t.Fatalf("%q does not match itself at cutoff %v: %q", word, cutoff, got)
		}
		m := newSequenceMatcher([]rune(word))
		for _, p := range []string{p1, p2} {
			a := []rune(p)
			r := m.ratio(a)
			if r < 0 || r > 1 || r > m.quickRatio(a) || m.quickRatio(a) > m.realQuickRatio(a) {
				t.Fatalf("%q, %q: ratio %v, quick %v, real quick %v", word, p, r, m.quickRatio(a), m.realQuickRatio(a))
			}
		}
	})
}
