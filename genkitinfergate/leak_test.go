package genkitinfergate_test

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind, such as a stream's connection still
// open after genkit's call returned.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}
