package batch_test

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind: a worker, the writer, a request.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}
