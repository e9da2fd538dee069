package main

import (
	"bufio"
	"errors"
	"io"
)

// maxStdin bounds what chat and embed read from stdin (a conversation: each line), far above a
// message or a list of texts, so that a mistaken pipe (a disk image, /dev/zero, a log that never
// ends) is refused once the bound is passed instead of being read into memory. The commands' help
// says it as stdinBound.
const (
	maxStdin   = 8 << 20
	stdinBound = "8 MiB"
)

// readStdin reads the whole of stdin, up to maxStdin bytes; more is a usage error.
func (a *app) readStdin() ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(a.stdin, maxStdin+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStdin {
		return nil, errStdinTooLarge()
	}
	return data, nil
}

// stdinLines scans the lines of stdin, each at most maxStdin bytes; lineError tells why the scan
// ended.
func (a *app) stdinLines() *bufio.Scanner {
	scanner := bufio.NewScanner(a.stdin)
	scanner.Buffer(nil, maxStdin)
	return scanner
}

// lineError is what a scan of stdin ended with: nil at the end of input, and for a line over
// maxStdin the usage error readStdin gives.
func lineError(scanner *bufio.Scanner) error {
	if errors.Is(scanner.Err(), bufio.ErrTooLong) {
		return errStdinTooLarge()
	}
	return scanner.Err()
}

func errStdinTooLarge() error {
	return usagef("stdin holds more than %s, the most it is read for", stdinBound)
}
