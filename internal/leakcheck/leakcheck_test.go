package leakcheck

import (
	"strings"
	"testing"
	"time"
)

func TestLeakedFindsABlockedGoroutine(t *testing.T) {
	stop := make(chan struct{})
	go func() { <-stop }()
	leaked := Leaked(50 * time.Millisecond)
	close(stop)
	if len(leaked) != 1 || !strings.Contains(leaked[0], "TestLeakedFindsABlockedGoroutine") {
		t.Fatalf("leaked = %q, want the one goroutine this test started", leaked)
	}
	if leaked := Leaked(time.Second); len(leaked) != 0 {
		t.Errorf("after it ended: %q", leaked)
	}
}
