//go:build purego

package jsonscan

// view is b as a string: a copy, built with the purego tag (see text_unsafe.go).
func view(b []byte) string { return string(b) }
