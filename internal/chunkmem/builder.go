package chunkmem

import "strings"

// builderSafe is Builder's safe twin, a strings.Builder: its appends store the slice's pointer
// again each time.
type builderSafe struct{ b strings.Builder }

func (b *builderSafe) Len() int               { return b.b.Len() }
func (b *builderSafe) Cap() int               { return b.b.Cap() }
func (b *builderSafe) Grow(n int)             { b.b.Grow(n) }
func (b *builderSafe) Write(p []byte)         { b.b.Write(p) }
func (b *builderSafe) WriteString(s string)   { b.b.WriteString(s) }
func (b *builderSafe) String() string         { return b.b.String() }
func (b *builderSafe) Piece(start int) string { return b.b.String()[start:] }
