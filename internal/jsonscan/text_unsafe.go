//go:build !purego

package jsonscan

import "unsafe"

// view is b as a string, without a copy: b must never change after (see texts). Its safe twin,
// the one built with the purego tag, copies.
func view(b []byte) string { return unsafe.String(&b[0], len(b)) }
