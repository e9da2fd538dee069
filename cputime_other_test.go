//go:build !unix

package infergate_test

import "time"

// processCPU is not measured on this system.
func processCPU() (time.Duration, bool) { return 0, false }
