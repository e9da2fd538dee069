package infergate

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if any test left a goroutine behind: a stream, a retry wait, a watchdog or
// a tool call that outlives its call is a leak a user's program would pay for.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}
