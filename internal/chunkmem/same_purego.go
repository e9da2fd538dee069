//go:build purego

package chunkmem

// Equal reports whether a and b are equal: equalSafe, built with the purego tag (see
// same_unsafe.go).
func Equal(a, b string) bool { return equalSafe(a, b) }
