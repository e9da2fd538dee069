package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture writes a repository of one module, example.com/fixture, with the given Markdown files.
func fixture(t *testing.T, docs map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                    "module example.com/fixture\n\ngo 1.26.0\n",
		"fixture.go":                "package fixture\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n",
		"internal/secret/secret.go": "package secret\n\n// Value is internal.\nconst Value = 1\n",
	}
	for name, text := range docs {
		files[name] = text
	}
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestSnippetsThatCompile(t *testing.T) {
	t.Parallel()
	root := fixture(t, map[string]string{
		"README.md": strings.Join([]string{
			"Statements, using ctx, a package of the repository and the standard library's, with a",
			"variable left for the reader:",
			"",
			"```go",
			"greeting := fixture.Hello()",
			"fmt.Println(greeting, ctx.Err())",
			"n, err := fmt.Println()",
			"if err != nil {",
			"\treturn err",
			"}",
			"```",
			"",
			"Declarations:",
			"",
			"```go",
			"func TestHello(t *testing.T) {",
			"\tif fixture.Hello() == \"\" {",
			"\t\tt.Fatal(\"no greeting\")",
			"\t}",
			"}",
			"```",
			"",
			"A file of its own, and a snippet with imports and an assumption:",
			"",
			"```go",
			"package main",
			"",
			"import \"fmt\"",
			"",
			"func main() { fmt.Println() }",
			"```",
			"<!-- snippet",
			"var lookUp func(context.Context, string) (string, error)",
			"-->",
			"```go",
			"import str \"strings\"",
			"",
			"out, err := lookUp(ctx, str.ToUpper(\"paris\"))",
			"```",
		}, "\n"),
		"CONTRIBUTING.md": "No Go here.\n\n```sh\ngo test ./...\n```\n",
	})
	var stdout, stderr strings.Builder
	if code := run([]string{"-root", root}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if want := "4 Go snippets in 2 Markdown files compile\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
}

func TestBrokenSnippetsAreReportedWhereTheyAre(t *testing.T) {
	t.Parallel()
	root := fixture(t, map[string]string{
		"README.md": "# Fine\n\n```go\nfmt.Println(fixture.Hello())\n```\n",
		"docs/broken.md": strings.Join([]string{
			"# Broken", // 1
			"",         // 2
			"```go",    // 3
			"for _, err := range []error{nil} { // err is declared and not used", // 4
			"}",                           // 5
			"```",                         // 6
			"",                            // 7
			"```go",                       // 8
			"x := 1",                      // 9
			"y := x + z",                  // 10
			"```",                         // 11
			"",                            // 12
			"```go",                       // 13
			"for rec := range recs { … }", // 14
			"```",                         // 15
			"",                            // 16
			"```go",                       // 17
			"fmt.Println(secret.Value) // internal: not imported by name", // 18
			"```", // 19
		}, "\n"),
	})
	var stdout, stderr strings.Builder
	if code := run([]string{"-root", root}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit status %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"# the snippet at docs/broken.md:4\n",
		"docs/broken.md:4:8: declared and not used: err\n",
		"docs/broken.md:10:10: undefined: z\n",
		"docs/broken.md:14:25: ",
		"docs/broken.md:18:13: undefined: secret\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "README.md") || strings.Contains(out, root) {
		t.Errorf("output names the snippet that compiles, or an absolute path:\n%s", out)
	}
}

func TestOnlyTheFilesNamed(t *testing.T) {
	t.Parallel()
	root := fixture(t, map[string]string{
		"README.md":      "```go\nundefinedName()\n```\n",
		"docs/fine.md":   "```go\nfmt.Println(fixture.Hello())\n```\n",
		"docs/also.md":   "```go\n_ = fixture.Hello()\n```\n",
		"docs/notes.txt": "```go\nundefinedName()\n```\n",
	})
	var stdout, stderr strings.Builder
	if code := run([]string{"-root", root, "docs/fine.md", "docs/also.md"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if want := "2 Go snippets in 2 Markdown files compile\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
}

func TestUnclosedFenceFailsTheRun(t *testing.T) {
	t.Parallel()
	root := fixture(t, map[string]string{"docs/open.md": "text\n```go\nfmt.Println()\n"})
	var stdout, stderr strings.Builder
	if code := run([]string{"-root", root}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit status %d, want 1", code)
	}
	if want := "snippets: docs/open.md:2: the fence ``` is never closed\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}
