package structs

import (
	"io"
	"sync"
)

// Inner is embedded.
type Inner struct{ A int }

type inner struct{ B int }

// Outer embeds several kinds.
type Outer struct {
	Inner
	*io.PipeReader
	inner
	sync.Mutex
	X, Y    int
	z       int
	Nested  struct{ P, q string }
	Handler func(ctx any, n int) (bool, error)
}

// Opaque has only unexported fields.
type Opaque struct {
	_ [0]func()
	n int
}

type hidden struct{ Visible int }
