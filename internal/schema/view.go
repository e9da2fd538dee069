//go:build !purego

package schema

import "unsafe"

// viewString returns b's bytes as a string without copying them: the string is only read while
// b is, and b does not change meanwhile. Its twin for the purego build is in view_purego.go.
func viewString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
