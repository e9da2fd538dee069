//go:build !purego

package jsonscan

import "unsafe"

// within reports whether b, not empty, lies in t, by comparing their addresses as numbers. Its safe
// twin is withinSafe, which the purego tag selects.
func within(t, b []byte) bool {
	if len(b) == 0 || len(t) == 0 || len(b) > len(t) {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(t)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= start && p-start <= uintptr(len(t)-len(b))
}
