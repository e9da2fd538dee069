package main

import (
	"os"

	"github.com/infergate/infergate-go/internal/tty"
)

// terminalsOf says which of the standard streams are terminals, each by isTerminal: a terminal is
// one the system says has terminal settings, not any character device, so that /dev/null (as
// cron and systemd give a command) is taken for the file it is.
func terminalsOf(stdin, stdout, stderr *os.File) terminals {
	return terminals{in: isTerminal(stdin), out: isTerminal(stdout), err: isTerminal(stderr)}
}

// isTerminal reports whether f is a terminal (internal/tty).
func isTerminal(f *os.File) bool { return tty.IsTerminal(f) }
