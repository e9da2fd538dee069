package main

import (
	"os"
	"path/filepath"
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

// TestRehearsalModCacheDropsEveryReleasedModule: the root module at a version is extracted beside
// the nested modules' directory; a copy from an earlier run must not be built instead of the new one.
func TestRehearsalModCacheDropsEveryReleasedModule(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "infergate-go-rehearsal", "modcache")
	ours := []string{
		"github.com/infergate/infergate-go@v0.2.0/client.go",
		"github.com/infergate/infergate-go/mcptools@v0.2.0/mcptools.go",
		"cache/download/github.com/infergate/infergate-go/@v/v0.2.0.zip",
	}
	theirs := "github.com/redis/go-redis/v9@v9.23.0/redis.go"
	for _, f := range append(ours, theirs) {
		p := filepath.Join(cache, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := rehearsalModCache()
	if err != nil || got != cache {
		t.Fatalf("rehearsalModCache() = %q, %v; want %q", got, err, cache)
	}
	for _, f := range ours {
		if _, err := os.Stat(filepath.Join(cache, filepath.FromSlash(f))); !os.IsNotExist(err) {
			t.Errorf("%s is still in the cache (%v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, filepath.FromSlash(theirs))); err != nil {
		t.Errorf("a third-party module was removed: %v", err)
	}
}
