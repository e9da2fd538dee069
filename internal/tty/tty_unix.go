//go:build (darwin || dragonfly || freebsd || linux || netbsd || openbsd) && !purego

package tty

import (
	"os"
	"syscall"
	"unsafe"
)

// IsTerminal reports whether f is a terminal: whether the system gives its terminal settings
// (the ioctl behind isatty).
func IsTerminal(f *os.File) bool {
	conn, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var settings syscall.Termios
	var errno syscall.Errno
	if err := conn.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, getTermios, uintptr(unsafe.Pointer(&settings)))
	}); err != nil {
		return false
	}
	return errno == 0
}
