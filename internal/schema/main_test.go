package schema

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}

// scaled returns n, or a tenth of it (at least 1) under the race detector: for tests whose point
// is volume, which the detector makes ten times dearer without finding anything more.
func scaled(n int) int {
	if raceEnabled {
		return max(n/10, 1)
	}
	return n
}
