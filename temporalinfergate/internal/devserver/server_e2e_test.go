//go:build e2e

package devserver_test

import (
	"context"
	"testing"

	"github.com/infergate/infergate-go/temporalinfergate/internal/devserver"
	"go.temporal.io/sdk/client"
)

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
