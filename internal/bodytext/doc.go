// Package bodytext turns an error body that is not JSON (a proxy's HTML page, an object store's XML,
// plain text) into a short, tag-free message.
//
// What it promises: Text and Excerpt never panic, whatever the bytes. Text gives a page's title, or
// its visible text with tags, comments, scripts and styles removed and entities decoded, and never
// more than about 64 KiB of it however large the body: far more than an excerpt, so that a
// credential in it is still whole when the caller redacts it before cutting. Excerpt returns at most
// ExcerptLen bytes plus its "…", cut at a character boundary, so valid UTF-8 stays valid. Neither
// keeps a reference to its input.
package bodytext
