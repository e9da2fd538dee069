package batch

import (
	"fmt"
	"strings"
)

// InputError is an input file with bad lines; nothing was sent.
type InputError struct {
	Lines []LineError // the bad lines found, in file order (at most MaxLineErrors)
}

// MaxLineErrors bounds InputError.Lines, so that a wrong file does not print a million errors.
const MaxLineErrors = 20

// LineError is one bad line of an input file.
type LineError struct {
	Line     int    // from 1
	CustomID string // when the line has one
	Err      error  // what is wrong; a *infergate.ValidationError for a body the SDK refuses
}

func (e *InputError) Error() string {
	var b strings.Builder
	for i, l := range e.Lines {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "line %d: %v", l.Line, l.Err)
	}
	return b.String()
}

// Unwrap gives the lines' errors, for errors.As.
func (e *InputError) Unwrap() []error {
	errs := make([]error, len(e.Lines))
	for i, l := range e.Lines {
		errs[i] = l.Err
	}
	return errs
}
