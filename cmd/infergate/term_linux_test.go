package main

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal, as a terminal emulator does, and returns its two ends.
func openPTY(t *testing.T) (controller, terminal *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal on this machine: %v", err)
	}
	t.Cleanup(func() { controller.Close() })
	var unlock int32
	var n uint32
	conn, err := controller.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var errno syscall.Errno
	if err := conn.Control(func(fd uintptr) {
		if _, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno == 0 {
			_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n)))
		}
	}); err != nil || errno != 0 {
		t.Fatalf("unlocking the pseudo-terminal: %v %v", err, errno)
	}
	terminal, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { terminal.Close() })
	return controller, terminal
}

// TestIsTerminalForAPseudoTerminal: the terminal end of a pseudo-terminal, what a shell in a
// terminal window has for its streams, is a terminal.
func TestIsTerminalForAPseudoTerminal(t *testing.T) {
	t.Parallel()
	_, terminal := openPTY(t)
	if !isTerminal(terminal) {
		t.Errorf("%s is not taken for a terminal", terminal.Name())
	}
	if got := terminalsOf(terminal, terminal, terminal); got != (terminals{in: true, out: true, err: true}) {
		t.Errorf("terminalsOf(%s) = %+v, want all three", terminal.Name(), got)
	}
}
