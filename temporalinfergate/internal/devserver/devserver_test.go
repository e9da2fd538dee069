package devserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
	"github.com/infergate/infergate-go/temporalinfergate/internal/devserver"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Run(m)) }

// TEMPORAL_CLI names the command; a path that does not exist is said so.
func TestBinaryFromTheEnvironment(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "temporal")
	t.Setenv(devserver.EnvBinary, missing)
	if _, err := devserver.Binary(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Binary() with %s=%s: %v; want an error naming the path", devserver.EnvBinary, missing, err)
	}
	if err := os.WriteFile(missing, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := devserver.Binary(); err != nil || got != missing {
		t.Errorf("Binary() = %q, %v; want %q", got, err, missing)
	}
}
