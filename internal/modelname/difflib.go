package modelname

import (
	"cmp"
	"slices"
)

// CloseMatches is Python's difflib.get_close_matches(word, possibilities, n, cutoff), which the
// gateway uses to suggest catalogue names for a near miss: the possibilities whose similarity
// ratio with word is at least cutoff, the best n of them, best first (equal ratios: the greater
// string first, as Python's heapq.nlargest orders its (ratio, string) pairs). Strings are compared
// by code point, as Python's are.
func CloseMatches(word string, possibilities []string, n int, cutoff float64) []string {
	type scored struct {
		ratio float64
		s     string
	}
	m := newSequenceMatcher([]rune(word))
	var found []scored
	for _, p := range possibilities {
		a := []rune(p)
		// The first two are cheap upper bounds of the ratio, as difflib checks them.
		if m.realQuickRatio(a) >= cutoff && m.quickRatio(a) >= cutoff {
			if r := m.ratio(a); r >= cutoff {
				found = append(found, scored{r, p})
			}
		}
	}
	slices.SortFunc(found, func(x, y scored) int {
		if c := cmp.Compare(y.ratio, x.ratio); c != 0 {
			return c
		}
		return cmp.Compare(y.s, x.s)
	})
	out := make([]string, 0, min(n, len(found)))
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.s)
	}
	return out
}

// sequenceMatcher is difflib.SequenceMatcher with b, the word, fixed and no junk function; a,
// each possibility, varies.
type sequenceMatcher struct {
	b     []rune
	b2j   map[rune][]int // where each element of b is, popular elements left out
	count map[rune]int   // how often each element is in b, popular ones included
}

func newSequenceMatcher(b []rune) *sequenceMatcher {
	m := &sequenceMatcher{b: b, b2j: map[rune][]int{}, count: map[rune]int{}}
	for j, r := range b {
		m.b2j[r] = append(m.b2j[r], j)
		m.count[r]++
	}
	// difflib's autojunk: in a b of 200 elements or more, an element found more than 1% of the
	// time (plus one) is popular, and no match starts on it.
	if len(b) >= 200 {
		popular := len(b)/100 + 1
		for r, at := range m.b2j {
			if len(at) > popular {
				delete(m.b2j, r)
			}
		}
	}
	return m
}

func matchRatio(matches, length int) float64 {
	if length == 0 {
		return 1
	}
	return 2 * float64(matches) / float64(length)
}

func (m *sequenceMatcher) realQuickRatio(a []rune) float64 {
	return matchRatio(min(len(a), len(m.b)), len(a)+len(m.b))
}

// quickRatio counts the elements a and b share, in any order.
func (m *sequenceMatcher) quickRatio(a []rune) float64 {
	left := map[rune]int{}
	matches := 0
	for _, r := range a {
		n, seen := left[r]
		if !seen {
			n = m.count[r]
		}
		left[r] = n - 1
		if n > 0 {
			matches++
		}
	}
	return matchRatio(matches, len(a)+len(m.b))
}

// ratio is 2*M/T, M the elements of the matching blocks and T the length of a and b.
func (m *sequenceMatcher) ratio(a []rune) float64 {
	type span struct{ alo, ahi, blo, bhi int }
	matches := 0
	queue := []span{{0, len(a), 0, len(m.b)}}
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, j, k := m.longestMatch(a, q.alo, q.ahi, q.blo, q.bhi)
		if k == 0 {
			continue
		}
		matches += k
		if q.alo < i && q.blo < j {
			queue = append(queue, span{q.alo, i, q.blo, j})
		}
		if i+k < q.ahi && j+k < q.bhi {
			queue = append(queue, span{i + k, q.ahi, j + k, q.bhi})
		}
	}
	return matchRatio(matches, len(a)+len(m.b))
}

// longestMatch is difflib's find_longest_match: the longest block of a[alo:ahi] equal to one of
// b[blo:bhi], the earliest in a of those, then the earliest in b, grown over popular elements at
// both ends.
func (m *sequenceMatcher) longestMatch(a []rune, alo, ahi, blo, bhi int) (besti, bestj, bestSize int) {
	besti, bestj = alo, blo
	runs := map[int]int{} // j → length of the match ending at a[i-1], b[j]
	for i := alo; i < ahi; i++ {
		next := map[int]int{}
		for _, j := range m.b2j[a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := runs[j-1] + 1
			next[j] = k
			if k > bestSize {
				besti, bestj, bestSize = i-k+1, j-k+1, k
			}
		}
		runs = next
	}
	for besti > alo && bestj > blo && a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestSize = besti-1, bestj-1, bestSize+1
	}
	for besti+bestSize < ahi && bestj+bestSize < bhi && a[besti+bestSize] == m.b[bestj+bestSize] {
		bestSize++
	}
	return besti, bestj, bestSize
}
