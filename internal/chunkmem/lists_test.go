package chunkmem

import (
	"os"
	"slices"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}

func TestBlockCutsIndependentGrowingLists(t *testing.T) {
	t.Parallel()
	var b block[int]
	var sizes []int
	var lists [][]int
	for i := range 40 {
		list := b.cut(1, 8)
		if b.used == 1 {
			sizes = append(sizes, len(b.mem))
		}
		list[0] = i
		lists = append(lists, list)
	}
	if want := []int{1, 2, 4, 8, 8, 8, 8, 8}; !slices.Equal(sizes, want) {
		t.Errorf("block sizes %v, want %v", sizes, want)
	}
	_ = append(lists[0], -1) // a list is capped: appending copies it, leaving the next list alone
	for i, list := range lists {
		if len(list) != 1 || cap(list) != 1 || list[0] != i {
			t.Fatalf("list %d = %v (cap %d), want [%d] with cap 1", i, list, cap(list), i)
		}
	}
	if big := b.cut(3, 8); len(big) != 3 || cap(big) != 3 {
		t.Errorf("a list over a quarter of the largest block: len %d cap %d, want its own 3", len(big), cap(big))
	}
}

// The first block is the caller's array; a transient Lists hands the same memory out again once
// freed, and says so.
func TestListsFirstBlockAndTransientReuse(t *testing.T) {
	t.Parallel()
	var first [1]int
	var l Lists[int]
	list, reused := l.Cut(1, 8, first[:])
	if reused || &list[0] != &first[0] || cap(list) != 1 {
		t.Errorf("first list: reused %v, in the caller's array %v, cap %d", reused, &list[0] == &first[0], cap(list))
	}
	if next, _ := l.Cut(1, 8, first[:]); &next[0] == &first[0] {
		t.Error("the first block was handed out twice")
	}
	tl := Lists[int]{Transient: true}
	a, reused := tl.Cut(2, 8, nil)
	if !reused || cap(a) != 2 {
		t.Fatalf("transient list: reused %v, cap %d", reused, cap(a))
	}
	b, _ := tl.Cut(2, 8, nil)
	if &b[0] == &a[0] {
		t.Error("two lists of one chunk share memory")
	}
	b[0] = 7
	tl.Free()
	if c, _ := tl.Cut(2, 8, nil); &c[0] != &b[0] || c[0] != 7 {
		t.Error("a freed transient list was not handed out again as it was left")
	}
}
