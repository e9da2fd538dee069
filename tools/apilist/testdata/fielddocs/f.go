package fielddocs

import "io"

// Documented has every kind of comment that documents a field.
type Documented struct {
	// Above is documented by the comment above it.
	Above  int
	Beside int // Beside is documented by its line comment.
	// A and B share one comment.
	A, B string
	io.Reader
	hidden int
	// Nested is documented, and so is its field.
	Nested struct {
		// Inner is documented.
		Inner int
	}
}

// Undocumented has fields that its comments do not document.
type Undocumented struct {
	Bare int
	//nolint:lll
	Directive int
	// Detached is a blank line away from its field.

	Detached int
	Items    []struct {
		Hidden int
		// Shown is documented.
		Shown int
	} // Items is documented, its element's field Hidden is not.
	C, D int
	Documented
	unexported int
}

type hidden struct{ Visible int }

// Generic is checked like any struct.
type Generic[T any] struct {
	Value T
}
