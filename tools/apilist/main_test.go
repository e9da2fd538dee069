package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path → content) under a new temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// apilist runs the command and returns its exit code and output.
func apilist(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String() + errOut.String()
}

func repo(t *testing.T) string {
	return writeTree(t, map[string]string{
		"go.mod":                  "module example.com/m\n\ngo 1.25\n",
		"m.go":                    "package m\n\n// Old is renamed below.\nfunc Old() int { return 1 }\n\n// Kept stays.\nfunc Kept() {}\n",
		"sub/sub.go":              "package sub\n\n// S is in a package of the root module.\ntype S struct {\n\tF int // F is documented.\n}\n",
		"internal/in/in.go":       "package in\n\n// Hidden is internal.\nfunc Hidden() {}\n",
		"nested/go.mod":           "module example.com/m/nested\n\ngo 1.25\n",
		"nested/n.go":             "package nested\n\n// N is in a nested module.\nfunc N() {}\n",
		"examples/go.mod":         "module example.com/m/examples\n\ngo 1.25\n",
		"examples/lib/lib.go":     "package lib\n\n// E is in an example.\nfunc E() {}\n",
		"tools/go.mod":            "module example.com/m/tools\n\ngo 1.25\n",
		"tools/t/t.go":            "package t\n\n// T is the repository's tooling.\nfunc T() {}\n",
		"cmd/c/main.go":           "package main\n\nfunc main() {}\n",
		"benchmarks/b/b.go":       "package b\n\n// B is a benchmark helper.\nfunc B() {}\n",
		"otherpkg/testdata/x.go":  "package x\n\n// X is test data.\nfunc X() {}\n",
		"otherpkg/o.go":           "package otherpkg\n\n// O is listed.\nconst O = 1\n",
		"otherpkg/o_test.go":      "package otherpkg\n\n// TestOnly is not.\nfunc TestOnly() {}\n",
		"CHANGELOG.md":            "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-01-01\n\n### Breaking\n- `Old` → `New`, wrongly recorded in a release\n",
		"nested/internal/i/i.go":  "package i\n\n// I is internal to the nested module.\nfunc I() {}\n",
		"nested/deeper/d.go":      "package deeper\n\n// D is in the nested module's package.\nfunc D() {}\n",
		"crosscheck/go.mod":       "module example.com/m/crosscheck\n\ngo 1.25\n",
		"crosscheck/cc/cc.go":     "package cc\n\n// C is not published.\nfunc C() {}\n",
		"nested/examples/ex/e.go": "package ex\n\n// NE is an example of the nested module.\nfunc NE() {}\n",
	})
}

func TestWriteListsPublishedModules(t *testing.T) {
	t.Parallel()
	root := repo(t)
	if code, out := apilist(t, "-root", root, "-w"); code != 0 {
		t.Fatalf("-w exited %d: %s", code, out)
	}
	want := map[string]string{
		"m.txt": "pkg example.com/m, func Kept()\npkg example.com/m, func Old() int\n" +
			"pkg example.com/m/otherpkg, const O untyped int = 1\n" +
			"pkg example.com/m/sub, type S struct\npkg example.com/m/sub, type S struct, F int\n",
		"nested.txt": "pkg example.com/m/nested, func N()\npkg example.com/m/nested/deeper, func D()\n",
	}
	entries, err := os.ReadDir(filepath.Join(root, "api"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("api/ holds %v, want only %d listings", names, len(want))
	}
	for name, text := range want {
		b, err := os.ReadFile(filepath.Join(root, "api", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != text {
			t.Errorf("api/%s:\n%s\nwant:\n%s", name, b, text)
		}
	}
	if code, out := apilist(t, "-root", root, "-check"); code != 0 {
		t.Errorf("-check on the tree just listed exited %d: %s", code, out)
	}
}

func TestCheckFindsRename(t *testing.T) {
	t.Parallel()
	root := repo(t)
	if code, out := apilist(t, "-root", root, "-w"); code != 0 {
		t.Fatalf("-w exited %d: %s", code, out)
	}
	rename(t, filepath.Join(root, "m.go"), "func Old()", "func New()")
	code, out := apilist(t, "-root", root, "-check")
	if code != 1 {
		t.Fatalf("-check after a rename exited %d, want 1: %s", code, out)
	}
	for _, want := range []string{
		"The exported API of example.com/m differs from api/m.txt:",
		"\n-pkg example.com/m, func Old() int\n",
		"\n+pkg example.com/m, func New() int\n",
		"go run ./apilist -w",
		`"### Breaking"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-check output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "example.com/m/nested") {
		t.Errorf("-check reports the unchanged nested module:\n%s", out)
	}
}

func TestCheckWantsRemovalsUnderBreaking(t *testing.T) {
	t.Parallel()
	root := repo(t)
	for _, flag := range []string{"-w", "-release"} {
		if code, out := apilist(t, "-root", root, flag); code != 0 {
			t.Fatalf("%s exited %d: %s", flag, code, out)
		}
	}
	rename(t, filepath.Join(root, "m.go"), "func Old()", "func New()")
	rename(t, filepath.Join(root, "sub", "sub.go"), "F int", "F string")
	if code, out := apilist(t, "-root", root, "-w"); code != 0 {
		t.Fatalf("-w exited %d: %s", code, out)
	}

	// The listing matches, but the changelog names neither change in Unreleased.
	code, out := apilist(t, "-root", root, "-check")
	if code != 1 {
		t.Fatalf("-check with the changes unrecorded exited %d, want 1: %s", code, out)
	}
	for _, want := range []string{"  Old\t(pkg example.com/m, func Old() int)", "  S.F\t(pkg example.com/m/sub, type S struct, F int)"} {
		if !strings.Contains(out, want) {
			t.Errorf("-check output lacks %q:\n%s", want, out)
		}
	}

	changelog := "# Changelog\n\n## [Unreleased]\n\n### Breaking\n\n- `Old` → `New`.\n- `S.F` is a string.\n\n## [0.1.0] - 2026-01-01\n"
	if err := os.WriteFile(filepath.Join(root, "CHANGELOG.md"), []byte(changelog), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := apilist(t, "-root", root, "-check"); code != 0 {
		t.Errorf("-check with both changes under Breaking exited %d: %s", code, out)
	}
}

func TestCheckWantsFieldDocs(t *testing.T) {
	t.Parallel()
	root := repo(t)
	rename(t, filepath.Join(root, "sub", "sub.go"), "\tF int // F is documented.\n", "\tF int // F is documented.\n\tG int\n")
	rename(t, filepath.Join(root, "nested", "n.go"), "func N() {}\n", "func N() {}\n\n// T is in a nested module.\ntype T struct{ H, h int }\n")
	if code, out := apilist(t, "-root", root, "-w"); code != 0 {
		t.Fatalf("-w exited %d: %s", code, out)
	}

	// The listing matches, but two exported fields have no comment.
	code, out := apilist(t, "-root", root, "-check")
	if code != 1 {
		t.Fatalf("-check with undocumented fields exited %d, want 1: %s", code, out)
	}
	for _, want := range []string{"2 exported struct fields have no doc comment", "\nsub/sub.go:6: S.G\n", "\nnested/n.go:7: T.H\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("-check output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "differs from") {
		t.Errorf("-check reports a listing difference where there is none:\n%s", out)
	}

	rename(t, filepath.Join(root, "sub", "sub.go"), "\tG int\n", "\t// G is documented above.\n\tG int\n")
	rename(t, filepath.Join(root, "nested", "n.go"), "struct{ H, h int }", "struct {\n\tH, h int // H is documented beside.\n}")
	if code, out := apilist(t, "-root", root, "-check"); code != 0 {
		t.Errorf("-check with every field documented exited %d: %s", code, out)
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"-w", "-check"}, {"-check", "extra"}} {
		if code, _ := apilist(t, args...); code != 2 {
			t.Errorf("apilist %q exited %d, want 2", args, code)
		}
	}
}

func rename(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s has no %q", file, old)
	}
	if err := os.WriteFile(file, bytes.ReplaceAll(b, []byte(old), []byte(new)), 0o644); err != nil {
		t.Fatal(err)
	}
}
