package resp

import (
	"os"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
	"github.com/infergate/infergate-go/internal/redistest"
)

// TestMain stops the package's redis-server after the tests, and fails the run if a test left a
// goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(stopRedisAfter{m}))
}

type stopRedisAfter struct{ m *testing.M }

func (s stopRedisAfter) Run() int {
	defer redistest.StopShared()
	return s.m.Run()
}
