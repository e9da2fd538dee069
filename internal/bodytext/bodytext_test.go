package bodytext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, contentType, want string
	}{
		{name: "plain text, spaces collapsed", body: "  upstream\r\n  timed   out \n", want: "upstream timed out"},
		{name: "a page's title", body: "<html><head><TITLE>502 Bad\nGateway</TITLE></head><body>ignored</body></html>",
			want: "502 Bad Gateway"},
		{name: "visible text without a title", body: "<div><h1>Bad gateway</h1><p>Error 502 &mdash; retry</p></div>",
			want: "Bad gateway Error 502 — retry"},
		{name: "scripts, styles and comments dropped", body: "<style>p{x:1}</style><!-- <p>no</p> --><script>if (a < b) {}</script><p>yes</p>",
			want: "yes"},
		{name: "a lone < is text", body: "<p>1 < 2</p>", want: "1 < 2"},
		{name: "XML by content type", body: "  <Error><Code>NoSuchKey</Code></Error>", contentType: "application/xml",
			want: "NoSuchKey"},
		{name: "markup by content type though not starting with a tag", body: "oops <b>bold</b>", contentType: "text/html; charset=utf-8",
			want: "oops bold"},
		{name: "unclosed tag runs to the end", body: "<p>kept<script>var x", want: "kept"},
		{name: "empty", body: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Text([]byte(tt.body), tt.contentType); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestTextOfAHugeBodyIsBounded(t *testing.T) {
	t.Parallel()
	for _, body := range []string{strings.Repeat("word ", 1e5), "<p>" + strings.Repeat("word ", 1e5) + "</p>"} {
		if got := Text([]byte(body), ""); len(got) > maxPageText || !strings.HasPrefix(got, "word word") {
			t.Errorf("Text of %d bytes = %d bytes starting %q, want at most %d", len(body), len(got), got[:min(len(got), 20)], maxPageText)
		}
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	short := strings.Repeat("a", ExcerptLen)
	if got := Excerpt(short); got != short {
		t.Errorf("Excerpt of %d bytes changed it: %q", len(short), got)
	}
	// "é" is two bytes: placed across the cut, it is dropped whole.
	long := strings.Repeat("a", ExcerptLen-1) + "é" + "tail"
	if got, want := Excerpt(long), strings.Repeat("a", ExcerptLen-1)+"…"; got != want {
		t.Errorf("Excerpt = %q, want %q", got, want)
	}
}

// FuzzText holds Text and Excerpt to their promises on any body: no panic, bounded output, and
// valid UTF-8 from valid UTF-8.
func FuzzText(f *testing.F) {
	for _, seed := range []string{"", "<", "<!--", "<script>", "<title>x</title>", "<p>a &amp; b</p>", "a < b", "<?xml?><E/>",
		"<html><head><title>502</title></head></html>", strings.Repeat("é", 150)} {
		f.Add([]byte(seed), "")
		f.Add([]byte(seed), "text/html")
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		text := Text(body, contentType)
		if len(text) > maxPageText+utf8.UTFMax*maxPageText/4 {
			t.Fatalf("Text returned %d bytes", len(text))
		}
		ex := Excerpt(text)
		if len(ex) > ExcerptLen+len("…") {
			t.Fatalf("Excerpt returned %d bytes", len(ex))
		}
		if utf8.ValidString(text) && !utf8.ValidString(ex) {
			t.Fatalf("Excerpt(%q) = %q is not valid UTF-8", text, ex)
		}
	})
}
