package tty

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}

// openPTY opens a pseudo-terminal, as a terminal emulator does, and returns its terminal end.
func openPTY(t *testing.T) *os.File {
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
	terminal, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { terminal.Close() })
	return terminal
}

// The ioctl and its safe twin answer alike for each kind of file a command's streams may be: a
// pseudo-terminal, the null device and another character device, a file, a pipe, a directory.
func TestTwinsAgree(t *testing.T) {
	t.Parallel()
	open := func(name string, flag int) *os.File {
		f, err := os.OpenFile(name, flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	file := filepath.Join(t.TempDir(), "out")
	cases := []struct {
		name     string
		f        *os.File
		terminal bool
	}{
		{"a pseudo-terminal", openPTY(t), true},
		{os.DevNull, open(os.DevNull, os.O_RDWR), false},
		{"/dev/zero", open("/dev/zero", os.O_RDONLY), false},
		{"a file", open(file, os.O_RDWR|os.O_CREATE), false},
		{"a pipe's reader", r, false},
		{"a pipe's writer", w, false},
		{"a directory", open(t.TempDir(), os.O_RDONLY), false},
	}
	for _, c := range cases {
		got, safe := IsTerminal(c.f), IsTerminalSafe(c.f)
		if got != c.terminal || safe != c.terminal {
			t.Errorf("%s: IsTerminal %v, IsTerminalSafe %v, want %v", c.name, got, safe, c.terminal)
		}
	}
}
