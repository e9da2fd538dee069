// Package redact blanks credentials out of text, in every spelling a server may write them back
// with: as they are, JSON-escaped, percent-encoded in either case of hex, behind HTML character
// references, mixed and layered. The SDK's errors and logs and gatewaytest's cassettes share it, so
// that what one of them keeps out the others keep out too.
package redact

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Set is the credentials to blank out and the text that replaces them. The zero Set blanks out
// nothing. Its credentials sit behind pointers, which fmt never follows inside a value it prints,
// so a struct holding a Set prints addresses, never a credential.
type Set struct {
	forms       []*string // each credential as it is and as encoders write it, longest first
	longest     int       // the length of forms[0]
	replacement string
}

// New returns the Set that replaces each of secrets with replacement. Empty secrets are left out.
func New(replacement string, secrets ...string) Set {
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		quoted, _ := json.Marshal(s)
		forms = append(forms, s, string(quoted[1:len(quoted)-1]), url.QueryEscape(s), url.PathEscape(s))
	}
	// Longest first, so that no form is left half replaced by a shorter one it contains.
	slices.SortFunc(forms, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	forms = slices.Compact(forms)
	out := Set{forms: make([]*string, len(forms)), replacement: replacement}
	for i := range forms {
		out.forms[i] = &forms[i]
	}
	if len(forms) > 0 {
		out.longest = len(forms[0])
	}
	return out
}

// Empty reports whether the Set has no credential to blank out.
func (s Set) Empty() bool { return len(s.forms) == 0 }

// Bytes returns text with every credential blanked out, however it is spelled. text itself is
// never changed; it is returned as it is when it holds no credential.
func (s Set) Bytes(text []byte) []byte {
	for _, f := range s.forms {
		if bytes.Contains(text, []byte(*f)) {
			text = bytes.ReplaceAll(text, []byte(*f), []byte(s.replacement))
		}
	}
	if len(s.forms) > 0 && bytes.ContainsAny(text, escapeLeads) {
		text = s.blankEscaped(text)
	}
	return text
}

// String is Bytes for a string.
func (s Set) String(text string) string {
	for _, f := range s.forms {
		text = strings.ReplaceAll(text, *f, s.replacement)
	}
	if len(s.forms) > 0 && strings.ContainsAny(text, escapeLeads) {
		text = string(s.blankEscaped([]byte(text)))
	}
	return text
}
