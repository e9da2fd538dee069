//go:build purego

package schema

// viewString returns b's bytes as a string: in the purego build, a copy (see view.go).
func viewString(b []byte) string { return string(b) }
