//go:build purego

package jsonscan

// view is b as a string: a copy, built with the purego tag (see text_unsafe.go).
func view(b []byte) string { return string(b) }

// copyRuns is copyRunsSafe, built with the purego tag (see text_unsafe.go).
func copyRuns(dst, b []byte, i, lag int, high uint64) (int, int, uint64) {
	return copyRunsSafe(dst, b, i, lag, high)
}
