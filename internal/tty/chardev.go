//go:build !(linux || windows)

package tty

import "os"

// charDeviceNotNull reports whether f is a character device other than the null device: what may
// be a terminal where the standard library offers no way to ask the system.
func charDeviceNotNull(f *os.File) bool {
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(info, null)
}
