package partialjson

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m.Run, func(leaked []string) {
		fmt.Fprintf(os.Stderr, "goroutines left behind by the tests:\n\n%s\n", strings.Join(leaked, "\n\n"))
	}))
}
