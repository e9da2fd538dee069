package infergate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
)

// maxListItems bounds how many items one listing reads, far above what an account stores, so that a
// server that keeps sending new pages cannot keep a loop going forever.
const maxListItems = 1_000_000

// PaginationError ends a listing (History.List, History.Messages, Billing.Usage, Billing.UsageForMonth) that the server cannot bring to an
// end: a page with nothing that was not already yielded, which a server ignoring the offset sends
// again and again, or more than a million items. The items yielded before it are all distinct.
type PaginationError struct {
	Path   string // the route listed, below /api/v1
	Page   int    // the page at fault, counting from 1
	Reason string // what was wrong with it
}

// Error names the route and the page.
func (e *PaginationError) Error() string {
	return fmt.Sprintf("infergate: listing %s stopped at page %d: %s", e.Path, e.Page, e.Reason)
}

// page is one answer of a paginated route. done is set when the server said there is no more, and
// more when it said there is (then a short page does not end the listing: servers cap the limit).
type page[T any] struct {
	items []T
	done  bool
	more  bool
}

// pager describes a paginated route to paginate.
type pager[T any] struct {
	path     string
	pageSize int
	maxItems int            // 0 means maxListItems
	key      func(T) string // identifies an item, so that none is yielded twice
	fetch    func(skip, limit int) (page[T], error)
}

// paginate is the one pagination loop of the SDK. It yields the items of successive pages, each at
// most once, and ends after a page shorter than asked for (or longer: a server ignoring the limit
// sent everything), or one the server marks as the last. A non-empty page that brings nothing new
// ends it with a *PaginationError, and so does going past maxListItems.
func paginate[T any](p pager[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		limit := p.maxItems
		if limit == 0 {
			limit = maxListItems
		}
		seen := map[string]struct{}{}
		fail := func(n int, reason string) {
			var zero T
			yield(zero, &PaginationError{Path: p.path, Page: n, Reason: reason})
		}
		skip := 0
		for n := 1; ; n++ {
			if skip >= limit {
				fail(n, fmt.Sprintf("more than %d items", limit))
				return
			}
			pg, err := p.fetch(skip, p.pageSize)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			fresh := 0
			for _, item := range pg.items {
				k := p.key(item)
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
			case len(pg.items) > 0 && fresh == 0:
				fail(n, "the page repeats items already listed; the server seems to ignore the offset")
				return
			case pg.done || len(pg.items) == 0 || (!pg.more && len(pg.items) != p.pageSize):
				return
			}
			skip += len(pg.items)
		}
	}
}

// itemKey identifies a listed item by its id, or by its whole content when the server sent none.
func itemKey[T any](id string, item T) string {
	if id != "" {
		return "id:" + id
	}
	content, _ := json.Marshal(item)
	return "content:" + string(content)
}

// listOf decodes a JSON list that servers send either bare ([...]) or wrapped in an object under
// field ({"data":[...]}). null and a missing field give an empty list.
type listOf[T any] struct {
	field string
	items []T
}

func (l *listOf[T]) UnmarshalJSON(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return json.Unmarshal(raw, &l.items)
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return err
	}
	if inner, ok := wrapper[l.field]; ok {
		return json.Unmarshal(inner, &l.items)
	}
	return nil
}
