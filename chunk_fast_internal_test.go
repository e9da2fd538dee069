package infergate

import (
	"slices"
	"testing"
)

func TestBlockCutsIndependentGrowingLists(t *testing.T) {
	t.Parallel()
	var b block[int]
	var sizes []int
	var lists [][]int
	for i := range 40 {
		list := b.cut(1, 8)
		if len(b.free) == b.size-1 {
			sizes = append(sizes, b.size)
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
