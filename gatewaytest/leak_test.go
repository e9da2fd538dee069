package gatewaytest

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind, such as a handler still writing a
// stream nobody reads.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}
