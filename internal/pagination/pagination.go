package pagination

import (
	"encoding/json"
	"fmt"
	"iter"
)

// MaxItems bounds how many items one listing reads, far above what an account stores, so that a
// server that keeps sending new pages cannot keep a loop going forever.
const MaxItems = 1_000_000

// Page is one answer of a paginated route. Done is set when the server said there is no more, and
// More when it said there is (then a short page does not end the listing: servers cap the limit).
type Page[T any] struct {
	Items []T
	Done  bool
	More  bool
}

// Pager describes a paginated route to list.
type Pager[T any] struct {
	PageSize int
	MaxItems int                                    // 0 means MaxItems
	Key      func(T) string                         // identifies an item, so that none is yielded twice
	Fetch    func(skip, limit int) (Page[T], error) // asks for limit items past the first skip
	// Fail makes the error that ends a listing the server cannot bring to an end, at its page n
	// (counting from 1), for the reason given.
	Fail func(n int, reason string) error
}

// Items is the one pagination loop. It yields the items of successive pages, each at most once, and
// ends after a page shorter than asked for (or longer: a server ignoring the limit sent everything),
// or one the server marks as the last. A non-empty page that brings nothing new ends it with the
// error Fail makes, and so does going past the item bound; an error of Fetch ends it as it is.
func Items[T any](p Pager[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		limit := p.MaxItems
		if limit == 0 {
			limit = MaxItems
		}
		seen := map[string]struct{}{}
		fail := func(n int, reason string) {
			var zero T
			yield(zero, p.Fail(n, reason))
		}
		skip := 0
		for n := 1; ; n++ {
			if skip >= limit {
				fail(n, fmt.Sprintf("more than %d items", limit))
				return
			}
			pg, err := p.Fetch(skip, p.PageSize)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			fresh := 0
			for _, item := range pg.Items {
				k := p.Key(item)
				if _, dup := seen[k]; dup {
					continue
				}
				seen[k] = struct{}{}
				fresh++
				if !yield(item, nil) {
					return
				}
			}
			switch {
			case len(pg.Items) > 0 && fresh == 0:
				fail(n, "the page repeats items already listed; the server seems to ignore the offset")
				return
			case pg.Done || len(pg.Items) == 0 || (!pg.More && len(pg.Items) != p.PageSize):
				return
			}
			skip += len(pg.Items)
		}
	}
}

// Key identifies a listed item by its id, or by its whole content when the server sent none.
func Key[T any](id string, item T) string {
	if id != "" {
		return "id:" + id
	}
	content, _ := json.Marshal(item)
	return "content:" + string(content)
}
