//go:build !purego

package chunkmem

import "unsafe"

// Equal reports whether a and b are equal, settling the usual case of a stream's repeated
// strings, a string compared with itself, by its address and length without a call: a memo is
// asked once a field a chunk, and so is an accumulator about the chunk's id and model, and the
// call spills the caller's registers around it. Its safe twin is equalSafe, which the purego tag
// selects and FuzzEqualTwins holds it to.
func Equal(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}
