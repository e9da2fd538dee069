package infergate

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/infergate/infergate-go/internal/bodytext"
	"github.com/infergate/infergate-go/internal/redact"
)

// cloudflarePage is a proxy's error page with no <title>, a style sheet, a script and entities.
const cloudflarePage = `<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<html lang="en-US"><head><meta charset="UTF-8" />
<style>body{font-family:sans-serif} .cf-error-details{margin:0 auto}</style>
<script>window._cf_chl_opt={cvId: '2', cType: 'managed'}; if (a < b) { go() }</script>
</head><body><div class="cf-error-details"><h1>Bad gateway</h1>
<p>Error code 502 &mdash; the web server reported a bad gateway error.</p>
<p>Ray ID: 7d3f &middot; 2025-10-15 12:34:56 UTC</p></div></body></html>`

func TestAPIErrorFromAPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body  string
		wantMessage string
	}{
		{name: "nginx page: its title", body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n",
			wantMessage: "502 Bad Gateway"},
		{name: "no title: the visible text, no style, script or comment", body: cloudflarePage,
			wantMessage: "Bad gateway Error code 502 — the web server reported a bad gateway error. Ray ID: 7d3f · 2025-10-15 12:34:56 UTC"},
		{name: "title in capitals, with attributes and entities", body: `<HTML><HEAD><TITLE lang="en">503 &amp; retry</TITLE></HEAD><BODY>x</BODY></HTML>`,
			wantMessage: "503 & retry"},
		{name: "an empty title: the text", body: `<html><title> </title><body><p>upstream timed out</p></body></html>`,
			wantMessage: "upstream timed out"},
		{name: "an object store's XML", body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>`,
			wantMessage: "AccessDenied Request has expired"},
		{name: "a bare < in the text and an unclosed tag", body: `<p>1 < 2 and 3 <= 4</p><div class="x`,
			wantMessage: "1 < 2 and 3 <= 4"},
		{name: "HTML by its content type, text first", body: "Bad gateway<br>\n<i>try again</i> later",
			wantMessage: "Bad gateway try again later"},
		{name: "plain text is kept as it is", body: "upstream connect error or disconnect/reset before headers\n",
			wantMessage: "upstream connect error or disconnect/reset before headers"},
	}
	cfg := &config{redactor: redact.New(redactedText, secretKey)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := cfg.newAPIError(http.StatusBadGateway, http.Header{"Content-Type": {"text/html"}}, []byte(tt.body))
			if e.Message != tt.wantMessage {
				t.Errorf("Message = %q, want %q", e.Message, tt.wantMessage)
			}
			if text := e.Error(); strings.ContainsAny(text, "<>") && !strings.Contains(tt.body, "1 < 2") {
				t.Errorf("Error() = %q holds markup", text)
			}
			if !strings.HasPrefix(e.Error(), "infergate: 502 Bad Gateway") {
				t.Errorf("Error() = %q does not start with the status", e.Error())
			}
			if string(e.Body) != tt.body {
				t.Errorf("Body = %q, want the page in full", e.Body)
			}
		})
	}
}

func TestAPIErrorFromAHugePage(t *testing.T) {
	t.Parallel()
	page := "<html><body><script>" + strings.Repeat("var x = '<p>';", 1e5) + "</script>" +
		strings.Repeat("<p>Ça ne marche pas. </p>", 1e5) + "</body></html>"
	e := (&config{}).newAPIError(http.StatusServiceUnavailable, nil, []byte(page))
	if len(e.Message) > bodytext.ExcerptLen+len("…") || !utf8.ValidString(e.Message) || !strings.HasPrefix(e.Message, "Ça ne marche pas. Ça") {
		t.Errorf("Message = %q (%d bytes), want a valid excerpt of at most %d bytes", e.Message, len(e.Message), bodytext.ExcerptLen)
	}
	if len(e.Body) != len(page) {
		t.Errorf("Body has %d bytes, want all %d", len(e.Body), len(page))
	}
}

func TestAPIErrorPageIsRedacted(t *testing.T) {
	t.Parallel()
	// The key in clear, and written with an HTML entity, which only decoding reveals; the second
	// sits where the excerpt is cut.
	escaped := "&#115;" + secretKey[1:]
	page := "<html><body><p>Invalid key " + secretKey + "</p><p>" + strings.Repeat("x", bodytext.ExcerptLen-40) + " " + escaped + "</p></body></html>"
	e := (&config{redactor: redact.New(redactedText, secretKey)}).newAPIError(http.StatusUnauthorized, nil, []byte(page))
	for _, part := range []string{secretKey, secretKey[:12], escaped} {
		if strings.Contains(e.Error(), part) || bytes.Contains(e.Body, []byte(part)) && part == secretKey {
			t.Errorf("the key (%q) is in the error: %q / %q", part, e.Error(), e.Body)
		}
	}
	if !strings.Contains(e.Message, "Invalid key "+redactedText) {
		t.Errorf("Message = %q", e.Message)
	}
}

func TestStreamErrorFromAPage(t *testing.T) {
	t.Parallel()
	page := []byte(`<html><head><title>504 Gateway Time-out</title></head></html>`)
	e := (&config{}).newStreamError(page, page, false)
	if e.Message != "504 Gateway Time-out" || !strings.Contains(e.Raw, "<title>") {
		t.Errorf("Message = %q, Raw = %q", e.Message, e.Raw)
	}
}
