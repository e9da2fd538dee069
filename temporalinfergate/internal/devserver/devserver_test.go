package devserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
	"github.com/infergate/infergate-go/temporalinfergate/internal/devserver"
	"go.temporal.io/sdk/client"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Run(m)) }

// A started server answers on its address, and is gone once stopped.
func TestServerAnswersUntilStopped(t *testing.T) {
	bin, err := devserver.Binary()
	if err != nil {
		devserver.Unavailable(t, err)
	}
	s, err := devserver.Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Dial()
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
	if _, err := c.CheckHealth(context.Background(), &client.CheckHealthRequest{}); err != nil {
		t.Errorf("CheckHealth: %v", err)
	}
	c.Close()
	s.Stop()
	if c, err := s.Dial(); err == nil {
		c.Close()
		t.Errorf("a client dialled %s after Stop", s.HostPort)
	}
}

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
