package bodytext

import (
	"bytes"
	"html"
	"strings"
	"unicode/utf8"
)

const (
	// ExcerptLen bounds what Excerpt returns, in bytes, before its "…".
	ExcerptLen = 200
	// maxPageText bounds the text taken from the body for it: far more than the message, so that a
	// credential in it is whole when it is redacted, and little enough that a huge page costs no more
	// than a scan of its start.
	maxPageText = 64 << 10
)

// Text is the readable text of a body: for markup (a body that starts with a tag, or whose
// contentType is HTML or XML), the page's title, or its visible text when it has none (tags,
// comments, scripts and styles removed, entities decoded); for anything else the text itself. Runs
// of whitespace become one space.
func Text(body []byte, contentType string) string {
	body = bytes.TrimSpace(body)
	ct := strings.ToLower(contentType)
	markup := strings.Contains(ct, "html") || strings.Contains(ct, "xml") || (len(body) > 0 && body[0] == '<')
	if !markup {
		return collapseSpace(string(body[:min(len(body), maxPageText)]))
	}
	if title := pageTitle(body); title != "" {
		return title
	}
	return collapseSpace(html.UnescapeString(visibleText(body)))
}

// Excerpt cuts text to ExcerptLen bytes at a character boundary, marking the cut with "…".
func Excerpt(text string) string {
	if len(text) <= ExcerptLen {
		return text
	}
	cut := ExcerptLen
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// pageTitle returns the text of the page's <title> element, "" when there is none: proxies put
// their status line there.
func pageTitle(page []byte) string {
	head := asciiLower(page[:min(len(page), maxPageText)])
	open := bytes.Index(head, []byte("<title"))
	if open < 0 {
		return ""
	}
	start := bytes.IndexByte(head[open:], '>')
	if start < 0 {
		return ""
	}
	start += open + 1
	end := bytes.Index(head[start:], []byte("</title"))
	if end < 0 {
		return ""
	}
	return collapseSpace(html.UnescapeString(visibleText(page[start : start+end])))
}

// asciiLower lowers ASCII letters only, so that indexes into the copy are indexes into b.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// visibleText returns the text between the tags of a page, up to about maxPageText bytes, each tag
// replaced by a space.
func visibleText(page []byte) string {
	var b strings.Builder
	for len(page) > 0 && b.Len() < maxPageText {
		i := bytes.IndexByte(page, '<')
		if i < 0 {
			i = len(page)
		}
		b.Write(page[:min(i, maxPageText-b.Len())])
		page = page[i:]
		if len(page) == 0 {
			break
		}
		if !startsMarkup(page) {
			b.WriteByte('<') // "a < b" in a page's text is text
			page = page[1:]
			continue
		}
		b.WriteByte(' ')
		page = skipMarkup(page)
	}
	return b.String()
}

// startsMarkup reports whether the '<' page starts with opens a tag, a comment or a declaration.
func startsMarkup(page []byte) bool {
	if len(page) < 2 {
		return false
	}
	c := page[1]
	return c == '/' || c == '!' || c == '?' || ('a' <= c|0x20 && c|0x20 <= 'z')
}

// skipMarkup drops the tag, comment or declaration that page starts with, and with a script or
// style element its content too. One left unclosed runs to the end of the page.
func skipMarkup(page []byte) []byte {
	if bytes.HasPrefix(page, []byte("<!--")) {
		return after(page, []byte("-->"))
	}
	end := bytes.IndexByte(page, '>')
	if end < 0 {
		return nil
	}
	name := page[1:end]
	if i := bytes.IndexAny(name, " \t\r\n/"); i >= 0 {
		name = name[:i]
	}
	page = page[end+1:]
	for _, raw := range []string{"script", "style"} {
		if bytes.EqualFold(name, []byte(raw)) {
			return skipPast(page, raw)
		}
	}
	return page
}

// skipPast drops page up to and including the end tag of the raw-text element name.
func skipPast(page []byte, name string) []byte {
	for {
		i := bytes.Index(page, []byte("</"))
		if i < 0 {
			return nil
		}
		page = page[i+2:]
		if len(page) >= len(name) && bytes.EqualFold(page[:len(name)], []byte(name)) {
			return after(page, []byte(">"))
		}
	}
}

// after returns what follows the first sep in page, or nothing when sep is not there.
func after(page, sep []byte) []byte {
	i := bytes.Index(page, sep)
	if i < 0 {
		return nil
	}
	return page[i+len(sep):]
}
