package batch

import (
	"errors"
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
	// Err is what is wrong: a *infergate.ValidationError for a body the SDK refuses, a
	// *DuplicateError for a custom_id an earlier line has, else an error that says what.
	Err error
}

// Error names the line and what is wrong with it.
func (l LineError) Error() string {
	if l.CustomID != "" {
		return fmt.Sprintf("line %d (custom_id %q): %v", l.Line, l.CustomID, l.Err)
	}
	return fmt.Sprintf("line %d: %v", l.Line, l.Err)
}

// Unwrap gives what is wrong, for errors.As.
func (l LineError) Unwrap() error { return l.Err }

func (e *InputError) Error() string {
	var b strings.Builder
	for i, l := range e.Lines {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(l.Error())
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

// DuplicateError is a custom_id that an earlier line of the input has already.
type DuplicateError struct {
	FirstLine int // the first line with the custom_id, from 1
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("custom_id is line %d's already", e.FirstLine)
}

// ErrLineTooLong is a line longer than MaxLineSize.
var ErrLineTooLong = errors.New("batch: line longer than MaxLineSize")

// MaxLineSize bounds one line of the input or output, which is held whole while it is read or its
// request is in flight: room for the largest embeddings answer, 2048 vectors of 3072 numbers
// written out as text.
const MaxLineSize = 128 << 20
