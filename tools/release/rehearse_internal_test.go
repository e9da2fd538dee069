package main

import (
	"slices"
	"strings"
	"testing"
)

// TestConsumerEnvIgnoresTheModuleIndex: each rehearsal republishes one version with other files,
// so the consumers' go command must not reuse the module index it keeps for that version.
func TestConsumerEnvIgnoresTheModuleIndex(t *testing.T) {
	t.Setenv("GODEBUG", "http2client=0")
	env, err := consumerEnv(t.TempDir(), t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var godebug []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			godebug = append(godebug, v)
		}
	}
	if want := []string{"http2client=0,goindex=0"}; !slices.Equal(godebug, want) {
		t.Errorf("GODEBUG in the consumers' environment: %q, want %q", godebug, want)
	}
}
