//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package tty

import (
	"os"
	"syscall"
)

// getTermios is the ioctl request that reads a terminal's settings.
const getTermios = syscall.TIOCGETA

// IsTerminalSafe is IsTerminal's safe twin: a character device other than the null device. It
// errs towards a terminal.
func IsTerminalSafe(f *os.File) bool { return charDeviceNotNull(f) }
