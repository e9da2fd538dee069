package tty

import (
	"os"
	"syscall"
)

// getTermios is the ioctl request that reads a terminal's settings.
const getTermios = syscall.TCGETS

// IsTerminalSafe is IsTerminal's safe twin: whether f is a character device of a terminal's major
// number (Documentation/admin-guide/devices.txt): 4, the virtual consoles and serial ports; 5,
// /dev/tty, /dev/console and /dev/ptmx; 136 to 143, the pseudo-terminals.
func IsTerminalSafe(f *os.File) bool {
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	// The major number, as glibc's gnu_dev_major splits the device number.
	major := (st.Rdev>>8)&0xfff | (st.Rdev>>32)&^0xfff
	return major == 4 || major == 5 || major >= 136 && major <= 143
}
