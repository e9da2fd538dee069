//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package batch

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock, which the system lets go when f is closed or the process
// ends, however it ends; errLocked when another open file holds it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}
