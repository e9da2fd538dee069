// Package pagination is the one loop that lists a paginated route (skip and limit) page by page.
//
// What it promises: each item is yielded at most once, told apart by a key (its id, or its whole
// content when it has none); the listing ends on a page the server marks as the last, on an empty
// one, or on one shorter (or longer) than asked for unless the server said there is more. A listing
// the server cannot end ends with an error of the caller's making rather than running forever: a
// non-empty page bringing nothing new (a server ignoring the offset), or more items than the bound.
// It stops fetching as soon as the caller stops ranging, and fetches nothing before the caller ranges.
package pagination
