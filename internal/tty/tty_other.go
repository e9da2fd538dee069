//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package tty

import "os"

// IsTerminal reports whether f may be a terminal where the standard library offers no way to ask
// the system: a character device other than the null device. It errs towards a terminal, so that
// audio is not written to a screen.
func IsTerminal(f *os.File) bool { return charDeviceNotNull(f) }
