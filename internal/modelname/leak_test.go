package modelname

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}
