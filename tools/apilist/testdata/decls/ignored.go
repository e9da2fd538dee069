//go:build ignore

package decls

// Ignored is never built.
func Ignored() {}
