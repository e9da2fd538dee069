package batch

import (
	"cmp"
	"hash/maphash"
	"slices"
)

// idKey stands for a custom_id in the sets a run keeps: 16 bytes per request, whatever the ids'
// length, so that a million requests take 16 MB (and 1 MB more for their states). Two different ids share a key with a chance of
// about n²/2¹²⁹, below 10⁻²⁶ for a million; the input's duplicates, which stop a run, are
// confirmed on the ids themselves (findDuplicates).
type idKey [2]uint64

// hasher makes the keys of one run; its seeds are the process's own, as the keys never leave it.
type hasher struct{ a, b maphash.Seed }

func newHasher() hasher { return hasher{maphash.MakeSeed(), maphash.MakeSeed()} }

func (h hasher) key(customID string) idKey {
	return idKey{maphash.String(h.a, customID), maphash.String(h.b, customID)}
}

func compareKeys(a, b idKey) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// idSet is the input's custom_ids, sorted, with what the output holds for each.
type idSet struct {
	keys  []idKey
	state []state // beside keys
}

// state is what the output holds for a request.
type state uint8

const (
	pending   state = iota // no result yet
	succeeded              // a successful result
	failed                 // a failed result only
)

// newIDSet sorts keys (taking them) and returns the set and the keys found more than once.
func newIDSet(keys []idKey) (idSet, []idKey) {
	slices.SortFunc(keys, compareKeys)
	var twice []idKey
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] && (len(twice) == 0 || twice[len(twice)-1] != keys[i]) {
			twice = append(twice, keys[i])
		}
	}
	return idSet{keys: keys, state: make([]state, len(keys))}, twice
}

// find returns the place of k in the set.
func (s *idSet) find(k idKey) (int, bool) {
	return slices.BinarySearchFunc(s.keys, k, compareKeys)
}
