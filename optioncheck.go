package infergate

import (
	"net/http"
	"strings"
)

// check refuses option values that cannot work, before any request: a negative wait would panic in
// the backoff's random jitter, and a header that breaks the HTTP syntax would be refused by Go on
// every attempt. No reason repeats a credential or a header's value.
func (c *config) check() error {
	if len(c.optionErrs) > 0 {
		return c.optionErrs[0]
	}
	switch {
	case c.timeout <= 0:
		return invalid("Timeout", "must be positive, got %v", c.timeout)
	case c.retryBaseWait < 0 || c.retryMaxWait < 0:
		return invalid("RetryBackoff", "waits must not be negative, got %v and %v", c.retryBaseWait, c.retryMaxWait)
	case c.retryMaxWait < c.retryBaseWait:
		return invalid("RetryBackoff", "the longest wait %v is shorter than the first %v", c.retryMaxWait, c.retryBaseWait)
	case c.maxRetryAfter < 0:
		return invalid("MaxRetryAfter", "must not be negative, got %v", c.maxRetryAfter)
	case c.maxLine < 0:
		return invalid("MaxLineSize", "must not be negative, got %d", c.maxLine)
	}
	if !validHeaderValue(c.apiKey.reveal()) {
		return invalid("APIKey", "holds a control character such as a line break; it cannot be sent in a header")
	}
	if !validHeaderValue(c.accessToken.reveal()) {
		return invalid("AccessToken", "holds a control character such as a line break; it cannot be sent in a header")
	}
	return checkHeader("WithHeader", c.header)
}

// checkHeader refuses header names that are not HTTP tokens and values with control characters
// (CR and LF above all, which would split the header).
func checkHeader(field string, h http.Header) error {
	for name, values := range h {
		if !validHeaderName(name) {
			return invalid(field, "header name %q is not a valid HTTP header name", name)
		}
		for _, v := range values {
			if !validHeaderValue(v) {
				return invalid(field, "the value of header %s holds a control character such as a line break", name)
			}
		}
	}
	return nil
}

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r >= 0x80 || !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
			strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// validHeaderValue allows visible characters, spaces, tabs and bytes of UTF-8 text.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}
