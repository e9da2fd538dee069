package batch

import (
	"errors"
	"fmt"
	"os"
)

// ErrOutputInUse is an output that another run is writing: two runs on one output would each send
// the requests without a result and write a second line for them.
var ErrOutputInUse = errors.New("batch: another run is writing the output")

// errLocked is what lockFile returns for a file another open file holds locked.
var errLocked = errors.New("locked")

// lockOutput opens the output, creating it, and locks it for the run, which holds the file open
// until it ends; ErrOutputInUse when another run holds it. Where the system has no file locks
// (lockFile does nothing), two runs are not told apart.
func lockOutput(path string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("batch: output: %w", err)
		}
		if err := lockFile(f); err != nil {
			f.Close()
			if errors.Is(err, errLocked) {
				return nil, fmt.Errorf("%w (%s)", ErrOutputInUse, path)
			}
			return nil, fmt.Errorf("batch: output: %w", err)
		}
		// A run that wrote the output anew (RetryFailed) renamed a new file over it, locked: a
		// lock on the file the path named before holds nothing, and the path is opened again.
		held, err := f.Stat()
		if err == nil {
			var named os.FileInfo
			if named, err = os.Stat(path); err == nil && os.SameFile(held, named) {
				return f, nil
			}
		}
		f.Close()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("batch: output: %w", err)
		}
	}
}
