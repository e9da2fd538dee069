//go:build (darwin || dragonfly || freebsd || linux || netbsd || openbsd) && purego

package tty

import "os"

// IsTerminal reports whether f is a terminal: IsTerminalSafe, built with the purego tag (see
// tty_unix.go).
func IsTerminal(f *os.File) bool { return IsTerminalSafe(f) }
