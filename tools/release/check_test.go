package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTree lays out go.mod files (directory -> contents) and returns the tree of them at 0.1.0.
func writeTree(t *testing.T, mods map[string]string) *tree {
	t.Helper()
	root := t.TempDir()
	tr := &tree{root: root, version: "0.1.0"}
	for dir, content := range mods {
		d := filepath.Join(root, filepath.FromSlash(dir))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "go.mod"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tr.modules = append(tr.modules, dir)
	}
	slices.Sort(tr.modules)
	return tr
}

const (
	goodRoot = "module github.com/infergate/infergate-go\n\ngo 1.26.0\n"
	goodMCP  = "module github.com/infergate/infergate-go/mcptools\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ..\n"
	goodOtel = "module github.com/infergate/infergate-go/otelinfergate\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ../\n"
	goodLC = "module github.com/infergate/infergate-go/lcinfergate\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ../\n"
	goodEino = "module github.com/infergate/infergate-go/einoinfergate\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ../\n"
	goodGenkit = "module github.com/infergate/infergate-go/genkitinfergate\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ../\n"
	goodTokens = "module github.com/infergate/infergate-go/tokens\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ..\n"
	goodRedis = "module github.com/infergate/infergate-go/redisinfergate\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ..\n"
	goodTemporal = "module github.com/infergate/infergate-go/temporalinfergate\n\ngo 1.26.0\n\n" +
		"require github.com/infergate/infergate-go v0.1.0\n\nreplace github.com/infergate/infergate-go => ..\n"
)

func TestCheckAcceptsLockstepTree(t *testing.T) {
	t.Parallel()
	tr := writeTree(t, map[string]string{".": goodRoot, "einoinfergate": goodEino, "genkitinfergate": goodGenkit, "lcinfergate": goodLC, "mcptools": goodMCP, "otelinfergate": goodOtel, "redisinfergate": goodRedis, "temporalinfergate": goodTemporal, "tokens": goodTokens})
	if p := check(tr); len(p) > 0 {
		t.Fatalf("check found problems in a releasable tree: %q", p)
	}
}

func TestCheckFindsEachProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		dir    string
		gomod  string
		expect string
	}{
		{"unreleased version", "mcptools", strings.Replace(goodMCP, "v0.1.0", "v0.0.0", 1), "it must be v0.1.0"},
		{"older go", "mcptools", strings.Replace(goodMCP, "go 1.26.0", "go 1.25.0", 1), "go directive must be 1.26.0"},
		{"newer go", "otelinfergate", strings.Replace(goodOtel, "go 1.26.0", "go 1.27.0", 1), "go directive must be 1.26.0"},
		{"no replace", "mcptools", strings.Split(goodMCP, "\nreplace")[0], "without a replace"},
		{"replace elsewhere", "mcptools", strings.Replace(goodMCP, "=> ..", "=> ../otelinfergate", 1), "must be by the directory ."},
		{"third-party replace", "otelinfergate", goodOtel + "replace example.com/x => ../x\n", "replaces example.com/x"},
		{"root replace", ".", goodRoot + "replace example.com/x => ./x\n", "the root module has no replace"},
		{"wrong module path", "mcptools", strings.Replace(goodMCP, "/mcptools", "/mcp", 1), "module path must be"},
		{"toolchain line", "mcptools", goodMCP + "toolchain go1.27.4\n", "no toolchain line"},
		{"unknown module", "newmod", "module github.com/infergate/infergate-go/newmod\n\ngo 1.26.0\n", "neither published nor internal"},
		{"requires an internal module", "otelinfergate", goodOtel +
			"require github.com/infergate/infergate-go/benchmarks v0.1.0\nreplace github.com/infergate/infergate-go/benchmarks => ../benchmarks\n",
			"not a published module"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mods := map[string]string{".": goodRoot, "einoinfergate": goodEino, "genkitinfergate": goodGenkit, "lcinfergate": goodLC, "mcptools": goodMCP, "otelinfergate": goodOtel, "redisinfergate": goodRedis, "temporalinfergate": goodTemporal, "tokens": goodTokens}
			mods[tc.dir] = tc.gomod
			problems := check(writeTree(t, mods))
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.expect) }) {
				t.Fatalf("want a problem containing %q, got %q", tc.expect, problems)
			}
		})
	}
}

func TestCheckRequiresEveryPublishedModule(t *testing.T) {
	t.Parallel()
	problems := check(writeTree(t, map[string]string{".": goodRoot, "einoinfergate": goodEino, "mcptools": goodMCP}))
	if !slices.Contains(problems, "published module otelinfergate has no go.mod") {
		t.Fatalf("a missing published module was not reported: %q", problems)
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	got := (&tree{version: "1.2.3"}).tags()
	want := []string{"v1.2.3", "einoinfergate/v1.2.3", "genkitinfergate/v1.2.3", "lcinfergate/v1.2.3", "mcptools/v1.2.3", "otelinfergate/v1.2.3", "redisinfergate/v1.2.3", "temporalinfergate/v1.2.3", "tokens/v1.2.3"}
	if !slices.Equal(got, want) {
		t.Fatalf("tags() = %q, want %q", got, want)
	}
}

func TestReadVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src     string
		want    string
		wantErr bool
	}{
		{"package p\n\n// Version is it.\nconst Version = \"0.1.0\"\n", "0.1.0", false},
		{"package p\n\nconst (\n\tA = 1\n\tVersion = `1.4.2`\n)\n", "1.4.2", false},
		{"package p\n\nconst Version = \"v0.1.0\"\n", "", true},
		{"package p\n\nconst Version = \"0.1\"\n", "", true},
		{"package p\n\nconst Version = \"2.0.0\"\n", "", true},
		{"package p\n\nconst Version = \"1.0.0+build\"\n", "", true},
		{"package p\n\nvar Version = \"0.1.0\"\n", "", true},
	}
	for _, tc := range tests {
		file := filepath.Join(t.TempDir(), "client.go")
		if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readVersion(file)
		if (err != nil) != tc.wantErr || got != tc.want && !tc.wantErr {
			t.Errorf("readVersion(%q) = %q, %v; want %q, error %v", tc.src, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestRepositoryIsReleasable runs the check on this repository, so a go.mod edit that breaks the
// lockstep fails the tools module's tests as well as CI's check step.
func TestRepositoryIsReleasable(t *testing.T) {
	t.Parallel()
	tr, err := loadTree(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if p := check(tr); len(p) > 0 {
		t.Fatalf("the repository is not releasable: %q", p)
	}
}

func TestCheckReleaseMoment(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(goodRoot), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "go.mod")
	git("commit", "-q", "-m", "first")
	tr := &tree{root: root, version: "0.1.0", modules: []string{"."}}
	if p := checkReleaseMoment(tr); len(p) > 0 {
		t.Fatalf("a clean, untagged tree was refused: %q", p)
	}

	git("tag", "mcptools/v0.1.0")
	if err := os.WriteFile(filepath.Join(root, "new.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := checkReleaseMoment(tr)
	for _, want := range []string{"uncommitted changes", "tag mcptools/v0.1.0 exists"} {
		if !slices.ContainsFunc(p, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("want a problem containing %q, got %q", want, p)
		}
	}
}
