package lcinfergate_test

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if any test left a goroutine behind: a stream the adapter did not close
// would be a leak in every program that uses it.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}
