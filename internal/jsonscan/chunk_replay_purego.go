//go:build purego

package jsonscan

// within reports whether b, not empty, lies in t: withinSafe, built with the purego tag (see
// chunk_replay_unsafe.go).
func within(t, b []byte) bool { return withinSafe(t, b) }
