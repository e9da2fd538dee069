package eino_test

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind, such as a stream's reading goroutine
// still running after its reader was closed.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}
