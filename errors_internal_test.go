package infergate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/internal/bodytext"
	"github.com/infergate/infergate-go/internal/redact"
	"github.com/infergate/infergate-go/internal/sse"
)

// FuzzErrorBody checks that any error body, JSON or not, becomes a typed error without panic, that a
// body that is not an envelope is shortened, and that the error's text names the status.
func FuzzErrorBody(f *testing.F) {
	for _, body := range []string{
		`{"detail":"Invalid API key"}`, `{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"}]}`,
		`{"error":{"message":"no money","type":"invalid_request_error","code":"insufficient_balance","available":"0"}}`,
		`{"error":{"message":"m","code":429,"param":null,"status":"503"}}`, `{"error":"text"}`, `{"error":null}`,
		`{"providerModelError":{"providerModelError":{"error":{"message":"deep"}}}}`,
		`<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>`, `<title>unclosed`, ``, `null`,
		`<p>a <b>b</b> <script>x</SCRIPT> c</p><!-- d`, `<title>a<b>c</b></title>`, `<!DOCTYPE html><style>p{}</style>`,
		`[1,2]`, `1e300`, `inf`, `9999999999999`, `{"detail":{"nested":true}}`, "\xff\xfe", strings.Repeat(`{"providerModelError":`, 50),
		`{"code":400,"message":"the request exceeds the available context size","type":"invalid_request_error"}`,
		`{"error":{"code":500,"message":"key ` + secretKey + ` failed","type":"server_error"}}`,
		`{"success":false,"message":"key ` + secretKey + ` has no stake"}`, `{"error":"\u0073k-live-SECRETKEY0123456789abcdef"}`,
	} {
		f.Add([]byte(body), 500)
	}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		status = 100 + abs(status)%500
		header := http.Header{"X-Request-Id": {"ab12cd34"}, "Retry-After": {string(body[:min(len(body), 16)])}}
		cfg := &config{redactor: redact.New(redactedText, secretKey)}
		header.Set("WWW-Authenticate", "Bearer "+string(body))
		e := cfg.newAPIError(status, header, body)
		text := e.Error()
		if out := fmt.Sprintf("%v %+v %#v %s", e, e, e, e.Body); strings.Contains(out, secretKey) {
			t.Fatalf("APIError leaks the key: %s", out)
		}
		if !strings.HasPrefix(text, fmt.Sprintf("infergate: %d ", status)) && !strings.HasPrefix(text, fmt.Sprintf("infergate: the server answered %d ", status)) {
			t.Fatalf("error text %q does not start with the status", text)
		}
		if _, isEnvelope := decodeEnvelope(body); !isEnvelope {
			if len(e.Message) > bodytext.ExcerptLen+len("…") {
				t.Fatalf("non-envelope body gave a %d-byte message", len(e.Message))
			}
			if markup := bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")); markup && !bytes.Contains(body, []byte("&")) && hasMarkup(e.Message) {
				t.Fatalf("body %q gave a message with markup: %q", body, e.Message)
			}
		}
		if e.RetryAfter < 0 {
			t.Fatalf("negative Retry-After %v", e.RetryAfter)
		}
		if errors.Is(e, ErrServer) != (status >= 500) {
			t.Fatalf("errors.Is(ErrServer) = %v for status %d", errors.Is(e, ErrServer), status)
		}
		se := cfg.newStreamError(body, body, status%2 == 0)
		if out := fmt.Sprintf("%v %+v %#v", se, se, se); strings.Contains(out, secretKey) {
			t.Fatalf("StreamError leaks the key: %s", out)
		}
		if errors.Is(se, ErrIncompleteStream) {
			t.Fatal("a skipped stream error must not match ErrIncompleteStream")
		}
		if !bytes.ContainsAny(body, "\r\n") {
			checkErrorLine(t, cfg, body)
		}
		resp := &http.Response{StatusCode: 200, Header: header, Body: io.NopCloser(bytes.NewReader(body))}
		if err := cfg.errorIn200(&route{}, resp, body); err != nil && !bytes.Contains(body, []byte(`"error"`)) {
			t.Fatalf("a 200 body without an error key was taken as an error: %v", err)
		}
	})
}

// checkErrorLine reads body as llama-box writes an error, after a field name on a line of its own:
// the stream error holds the error body reports, when it reports one, and the line as Raw.
func checkErrorLine(t *testing.T, cfg *config, body []byte) {
	t.Helper()
	line := append([]byte("error: "), body...)
	ev, err := sse.NewDecoder(bytes.NewReader(line), 0).Next()
	if err != nil || ev.Kind != sse.Stray || ev.Name != "error" {
		t.Fatalf("line %q read as %+v, %v", line, ev, err)
	}
	payload, bare := strayPayload(ev)
	se := cfg.newStreamError(ev.Data, payload, bare)
	if out := fmt.Sprintf("%v %+v %#v", se, se, se); strings.Contains(out, secretKey) {
		t.Fatalf("StreamError leaks the key: %s", out)
	}
	if se.Raw != string(cfg.redact(line)) {
		t.Fatalf("Raw %q, line %q", se.Raw, line)
	}
	value := bytes.TrimSpace(body)
	if _, ok := errorFields(value, true); ok {
		if f := cfg.reported(cfg.redact(value), "", true); f.Message != se.Message || f.Type != se.Type || f.Code != se.Code || f.Status != se.StatusCode {
			t.Fatalf("line %q gave %+v, its value reports %+v", line, se, f)
		}
	}
}

// hasMarkup reports whether text holds the start of a tag, a comment or a declaration.
func hasMarkup(text string) bool {
	for i := strings.IndexByte(text, '<'); i >= 0; i = strings.IndexByte(text, '<') {
		text = text[i+1:]
		if text != "" && (strings.IndexByte("/!?", text[0]) >= 0 || 'a' <= text[0]|0x20 && text[0]|0x20 <= 'z') {
			return true
		}
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}
