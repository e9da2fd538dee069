package infergate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/infergate/infergate-go/internal/transport"
)

// redactedText replaces a credential wherever the SDK repeats what a server or a caller wrote.
const redactedText = "[redacted]"

// redact blanks the client's credentials out of bytes a server sent, before they become part of an
// error or a log record: some servers echo the key they rejected, some of them escaped.
func (c *config) redact(body []byte) []byte { return c.redactor.Bytes(body) }

func (c *config) redactString(s string) string { return c.redactor.String(s) }

// redactHeader returns a copy of a response's headers with credentials blanked out of every value,
// so that an error holding them can be printed with %#v. The URLs of Location headers also lose
// their query values and user information, as redirects carry tokens there.
func (c *config) redactHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		isURL := k == "Location" || k == "Content-Location"
		clean := make([]string, len(vs))
		for i, v := range vs {
			if isURL {
				v = transport.RedactURL(v)
			}
			clean[i] = c.redactString(v)
		}
		out[k] = clean
	}
	return out
}

// redactError makes an error safe to return or log: URLs in it lose their query values and user
// information (a redirect can point at ".../login?token=<key>"), and an error whose text still
// holds a credential is replaced by its redacted text. The replacement still matches, with
// errors.Is, every sentinel the original matched (context.DeadlineExceeded, say), but it no longer
// unwraps to the original, whose text would give the credential away.
func (c *config) redactError(err error) error {
	if err == nil {
		return nil
	}
	err = transport.RedactURLError(err)
	text := err.Error()
	redacted := c.redactString(text)
	if redacted == text {
		return err
	}
	return &redactedError{text: redacted, is: func(target error) bool { return errors.Is(err, target) }}
}

// redactedError is an error whose text had to be redacted.
type redactedError struct {
	text string
	is   func(error) bool // errors.Is against the original, kept out of reach of Unwrap
}

func (e *redactedError) Error() string        { return e.text }
func (e *redactedError) Is(target error) bool { return e.is(target) }

// DecodeError is a successful response whose body is not what the route answers: broken or
// truncated JSON, or JSON of another shape. It keeps what the server sent, with credentials
// redacted, and the reason decoding failed (errors.As reaches a *json.SyntaxError, say).
type DecodeError struct {
	StatusCode int         // the HTTP status, a 2xx
	RequestID  string      // X-Request-Id of the response: quote it when reporting a problem
	Header     http.Header // the response headers, credentials redacted
	Body       []byte      // the response body, credentials redacted
	Err        error       // why the body could not be decoded
}

// Error says which response could not be read and why. It never contains credentials.
func (e *DecodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "infergate: %d %s response is not the expected JSON", e.StatusCode, http.StatusText(e.StatusCode))
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	if e.Err != nil {
		b.WriteString(": " + causeText(e.Err))
	}
	return b.String()
}

// Unwrap returns the decoding failure.
func (e *DecodeError) Unwrap() error { return e.Err }

// newDecodeError is the one way a *DecodeError is made: everything from the server is redacted.
func (c *config) newDecodeError(status int, header http.Header, body []byte, cause error) *DecodeError {
	h := c.redactHeader(header)
	return &DecodeError{StatusCode: status, RequestID: h.Get("X-Request-Id"), Header: h,
		Body: c.redact(bytes.Clone(body)), Err: c.redactError(cause)}
}

// secret holds a credential so that no formatting can show it. Its text sits behind a pointer:
// fmt never follows a pointer to a string, not even when it walks the unexported fields of a value
// that holds a secret (where its methods cannot be called), so a Client, a config or any struct
// around them prints an address, never the key. Printed directly, it formats as a placeholder for
// every verb.
type secret struct{ text *string }

func newSecret(s string) secret {
	if s == "" {
		return secret{}
	}
	return secret{&s}
}

// reveal returns the credential, for the one place it is sent: the Authorization header.
func (s secret) reveal() string {
	if s.text == nil {
		return ""
	}
	return *s.text
}

func (s secret) set() bool { return s.text != nil }

func (s secret) redacted() string {
	if !s.set() {
		return "[unset]"
	}
	return redactedText
}

// Format prints the placeholder whatever the verb and flags: %d or %x would otherwise reach the text.
func (s secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.redacted()) }

func (s secret) String() string               { return s.redacted() }
func (s secret) GoString() string             { return s.redacted() }
func (s secret) LogValue() slog.Value         { return slog.StringValue(s.redacted()) }
func (s secret) MarshalText() ([]byte, error) { return []byte(s.redacted()), nil }
