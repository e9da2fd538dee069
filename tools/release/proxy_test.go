package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestPublishLayout publishes a module whose path needs escaping and reads it back as the go
// command would: the GOPROXY layout, the .info and .mod files, and a zip that holds the module's
// files but not a nested module's, nor ignored ones.
func TestPublishLayout(t *testing.T) {
	t.Parallel()
	modDir := t.TempDir()
	gomod := "module github.com/Example/Mod\n\ngo 1.26.0\n\nreplace example.com/x => ../x\n"
	files := map[string]string{
		"go.mod":         gomod,
		"a.go":           "package mod\n",
		"sub/b.go":       "package sub\n",
		"nested/go.mod":  "module github.com/Example/Mod/nested\n",
		"nested/c.go":    "package nested\n",
		".gitignore":     "/built\n",
		"built":          "an ignored build output\n",
		"testdata/x.txt": "data\n",
	}
	for name, content := range files {
		p := filepath.Join(modDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", modDir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}

	proxyDir := t.TempDir()
	mv := module.Version{Path: "github.com/Example/Mod", Version: "v0.1.0"}
	when := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := publish(proxyDir, modDir, mv, when); err != nil {
		t.Fatal(err)
	}

	vdir := filepath.Join(proxyDir, "github.com", "!example", "!mod", "@v")
	read := func(name string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(vdir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if got := string(read("list")); got != "v0.1.0\n" {
		t.Errorf("list = %q", got)
	}
	if got := string(read("v0.1.0.mod")); got != gomod {
		t.Errorf(".mod = %q, want the go.mod unchanged, replace included", got)
	}
	var info struct {
		Version string
		Time    time.Time
	}
	if err := json.Unmarshal(read("v0.1.0.info"), &info); err != nil {
		t.Fatal(err)
	}
	if info.Version != "v0.1.0" || !info.Time.Equal(when) {
		t.Errorf(".info = %+v", info)
	}

	zipFile := filepath.Join(vdir, "v0.1.0.zip")
	if _, err := modzip.CheckZip(mv, zipFile); err != nil {
		t.Fatalf("the go command would refuse the zip: %v", err)
	}
	zr, err := zip.OpenReader(zipFile)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	prefix := "github.com/Example/Mod@v0.1.0/"
	want := []string{prefix + ".gitignore", prefix + "a.go", prefix + "go.mod", prefix + "sub/b.go", prefix + "testdata/x.txt"}
	if !slices.Equal(names, want) {
		t.Errorf("zip holds %q, want %q", names, want)
	}
}

func TestFileURL(t *testing.T) {
	t.Parallel()
	if got := fileURL("/tmp/a b/proxy"); got != "file:///tmp/a%20b/proxy" {
		t.Errorf("fileURL = %q", got)
	}
}

func TestImportable(t *testing.T) {
	t.Parallel()
	list := "m\tm\tm\n" +
		"m/gatewaytest\tgatewaytest\tm\n" +
		"m/cmd/tool\tmain\tm\n" +
		"m/internal/x\tx\tm\n" +
		"m/a/internal\tinternal\tm\n" +
		"m/sub\tsub\tm/sub\n"
	got := importable(list, "m")
	if want := []string{"m", "m/gatewaytest"}; !slices.Equal(got, want) {
		t.Errorf("importable = %q, want %q", got, want)
	}
}
