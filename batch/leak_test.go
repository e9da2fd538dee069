package batch_test

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind: a worker, the writer, a request. Run
// with scaleChildEnv set, the test binary is instead the gateway of the scale measurements (see
// startScaleServer), in a process of its own so that its memory and CPU are not the batch's.
func TestMain(m *testing.M) {
	if kind := os.Getenv(scaleChildEnv); kind != "" {
		os.Exit(serveScale(kind))
	}
	os.Exit(leakcheck.Run(m))
}
