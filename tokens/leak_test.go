package tokens_test

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind. Run as the codec-loading probe of
// BenchmarkCodecLoad, the binary measures the first load and exits instead.
func TestMain(m *testing.M) {
	if os.Getenv(loadProbeEnv) != "" {
		os.Exit(runLoadProbe())
	}
	os.Exit(leakcheck.Run(m))
}
