package infergate

import (
	"fmt"
	"io"
	"log/slog"
)

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
