package tty

import (
	"os"
	"syscall"
)

// IsTerminal reports whether f is a console: whether Windows gives its console mode, which it
// refuses for a file, a pipe or NUL.
func IsTerminal(f *os.File) bool {
	conn, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var mode uint32
	var modeErr error
	if err := conn.Control(func(handle uintptr) {
		modeErr = syscall.GetConsoleMode(syscall.Handle(handle), &mode)
	}); err != nil {
		return false
	}
	return modeErr == nil
}
