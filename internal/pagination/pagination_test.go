package pagination

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
)

type failure struct {
	n      int
	reason string
}

func (f *failure) Error() string { return fmt.Sprintf("page %d: %s", f.n, f.reason) }

// numbers is a Pager over ints whose pages fetch makes, counting the fetches.
func numbers(pageSize, maxItems int, fetch func(skip, limit int) (Page[int], error)) (Pager[int], *int) {
	fetches := 0
	return Pager[int]{PageSize: pageSize, MaxItems: maxItems, Key: strconv.Itoa,
		Fetch: func(skip, limit int) (Page[int], error) { fetches++; return fetch(skip, limit) },
		Fail:  func(n int, reason string) error { return &failure{n, reason} }}, &fetches
}

func collect(p Pager[int]) (items []int, err error) {
	for item, e := range Items(p) {
		if e != nil {
			return items, e
		}
		items = append(items, item)
	}
	return items, nil
}

func upTo(total int) func(skip, limit int) (Page[int], error) {
	return func(skip, limit int) (Page[int], error) {
		var items []int
		for i := skip; i < min(skip+limit, total); i++ {
			items = append(items, i)
		}
		return Page[int]{Items: items}, nil
	}
}

// TestItemsBounded feeds the loop pages of new items forever: it stops at the item bound with the
// error Fail makes.
func TestItemsBounded(t *testing.T) {
	t.Parallel()
	p, fetches := numbers(10, 100, upTo(1<<30))
	items, err := collect(p)
	var f *failure
	if len(items) != 100 || !errors.As(err, &f) || f.n != 11 || *fetches != 10 {
		t.Fatalf("%d items after %d fetches, err %v; want 100, 10 and a failure at page 11", len(items), *fetches, err)
	}
}

func TestItemsEnd(t *testing.T) {
	t.Parallel()
	for _, total := range []int{0, 1, 9, 10, 11, 30} {
		p, _ := numbers(10, 0, upTo(total))
		items, err := collect(p)
		if err != nil || len(items) != total || !slices.IsSorted(items) {
			t.Errorf("%d items: listed %v, err %v", total, items, err)
		}
	}
}

func TestItemsRepeatedPage(t *testing.T) {
	t.Parallel()
	p, _ := numbers(3, 0, func(int, int) (Page[int], error) { return Page[int]{Items: []int{1, 2, 3}}, nil })
	items, err := collect(p)
	var f *failure
	if !slices.Equal(items, []int{1, 2, 3}) || !errors.As(err, &f) || f.n != 2 {
		t.Fatalf("listed %v, err %v; want 1 2 3 and a failure at page 2", items, err)
	}
}

func TestItemsMoreAndDone(t *testing.T) {
	t.Parallel()
	// A server capping the limit at 2 says there is more; then it says it is done.
	p, fetches := numbers(10, 0, func(skip, _ int) (Page[int], error) {
		return Page[int]{Items: []int{skip, skip + 1}, More: skip < 4, Done: skip >= 4}, nil
	})
	items, err := collect(p)
	if err != nil || !slices.Equal(items, []int{0, 1, 2, 3, 4, 5}) || *fetches != 3 {
		t.Fatalf("listed %v in %d fetches, err %v", items, *fetches, err)
	}
}

func TestItemsFetchErrorAndEarlyStop(t *testing.T) {
	t.Parallel()
	broken := errors.New("broken")
	p, _ := numbers(2, 0, func(skip, limit int) (Page[int], error) {
		if skip > 0 {
			return Page[int]{}, broken
		}
		return upTo(10)(skip, limit)
	})
	if items, err := collect(p); !slices.Equal(items, []int{0, 1}) || err != broken {
		t.Errorf("listed %v, err %v; want 0 1 and the fetch's error as it is", items, err)
	}
	p, fetches := numbers(2, 0, upTo(10))
	for range Items(p) {
		break
	}
	if *fetches != 1 {
		t.Errorf("%d fetches for one item taken", *fetches)
	}
}

func TestKey(t *testing.T) {
	t.Parallel()
	type item struct{ A int }
	if Key("x", item{1}) == Key("", item{1}) || Key("", item{1}) == Key("", item{2}) || Key("x", item{1}) != Key("x", item{2}) {
		t.Error("keys: an id names an item; without one its content does")
	}
}
