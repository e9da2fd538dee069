package main

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// knownImports are the packages outside the repository that snippets use by their usual names
// without importing them. A name that means two packages (openai: go-openai and openai-go) is not
// here: a snippet using it imports the one it means.
var knownImports = map[string]string{
	"bufio":    "bufio",
	"bytes":    "bytes",
	"cmp":      "cmp",
	"context":  "context",
	"errors":   "errors",
	"exec":     "os/exec",
	"filepath": "path/filepath",
	"fmt":      "fmt",
	"http":     "net/http",
	"httptest": "net/http/httptest",
	"io":       "io",
	"json":     "encoding/json",
	"log":      "log",
	"math":     "math",
	"os":       "os",
	"slices":   "slices",
	"slog":     "log/slog",
	"strconv":  "strconv",
	"strings":  "strings",
	"sync":     "sync",
	"testing":  "testing",
	"time":     "time",
	"url":      "net/url",

	"ai":      "github.com/firebase/genkit/go/ai",
	"compose": "github.com/cloudwego/eino/compose",
	"genkit":  "github.com/firebase/genkit/go/genkit",
	"llms":    "github.com/tmc/langchaingo/llms",
	"mcp":     "github.com/modelcontextprotocol/go-sdk/mcp",
	"otel":    "go.opentelemetry.io/otel",
	"react":   "github.com/cloudwego/eino/flow/agent/react",
	"schema":  "github.com/cloudwego/eino/schema",
	"tool":    "github.com/cloudwego/eino/components/tool",
	"utils":   "github.com/cloudwego/eino/components/tool/utils",

	"activity":  "go.temporal.io/sdk/activity",
	"temporal":  "go.temporal.io/sdk/temporal",
	"testsuite": "go.temporal.io/sdk/testsuite",
	"worker":    "go.temporal.io/sdk/worker",
	"workflow":  "go.temporal.io/sdk/workflow",
}

// module is a module of the repository.
type module struct {
	dir  string // absolute
	path string
	goV  string // its go line
}

// modules finds every module under root, leaving out testdata and hidden directories.
func modules(root string) ([]module, error) {
	var mods []module
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := modfile.ParseLax(path, data, nil)
		if err != nil {
			return err
		}
		if f.Module == nil || f.Go == nil {
			return fmt.Errorf("%s: no module or go line", path)
		}
		mods = append(mods, module{dir: filepath.Dir(path), path: f.Module.Mod.Path, goV: f.Go.Version})
		return nil
	})
	return mods, err
}

// repoPackages maps the name of each importable package of the modules (neither main, nor internal,
// nor test-only) to its import path; a name two packages share is left out.
func repoPackages(mods []module) (map[string]string, error) {
	names := map[string]string{}
	shared := map[string]bool{}
	inModule := map[string]bool{}
	for _, m := range mods {
		inModule[m.dir] = true
	}
	for _, m := range mods {
		err := filepath.WalkDir(m.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			name := d.Name()
			if path != m.dir && (inModule[path] || name == "testdata" || name == "internal" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			pkg, err := packageName(path)
			if err != nil || pkg == "" || pkg == "main" {
				return err
			}
			rel, err := filepath.Rel(m.dir, path)
			if err != nil {
				return err
			}
			importPath := m.path
			if rel != "." {
				importPath += "/" + filepath.ToSlash(rel)
			}
			if other, ok := names[pkg]; ok && other != importPath {
				shared[pkg] = true
			}
			names[pkg] = importPath
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for name := range shared {
		delete(names, name)
	}
	return names, nil
}

// packageName is the package name of the non-test Go files of dir, or "" when it has none.
func packageName(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		return f.Name.Name, nil
	}
	return "", nil
}

// snippetModule is the module path of the generated module.
const snippetModule = "example.com/snippets"

// check compiles the snippets against the modules under root, and writes what fails to out.
func check(root string, snippets []snippet, out io.Writer, keep bool) (bool, error) {
	if len(snippets) == 0 {
		return true, nil
	}
	mods, err := modules(root)
	if err != nil {
		return false, err
	}
	names, err := repoPackages(mods)
	if err != nil {
		return false, err
	}
	for name, path := range knownImports {
		if _, ok := names[name]; !ok {
			names[name] = path
		}
	}
	tmp, err := os.MkdirTemp("", "infergate-snippets-")
	if err != nil {
		return false, err
	}
	if keep {
		fmt.Fprintln(out, "generated module:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	ok := true
	where := map[string]snippet{} // by package directory
	for i, s := range snippets {
		src, err := wrap(s, filepath.Join(root, filepath.FromSlash(s.file)), names)
		if err != nil {
			fmt.Fprintf(out, "# the snippet at %s\n%s\n", s, relative(root, err.Error()))
			ok = false
			continue
		}
		dir := fmt.Sprintf("s%03d", i+1)
		where[dir] = s
		if err := os.MkdirAll(filepath.Join(tmp, "snippets", dir), 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "snippets", dir, "snippet.go"), []byte(src), 0o644); err != nil {
			return false, err
		}
	}
	goV := "1.21"
	var use strings.Builder
	for _, m := range mods {
		if semver.Compare("v"+m.goV, "v"+goV) > 0 {
			goV = m.goV
		}
		fmt.Fprintf(&use, "\t%s\n", m.dir)
	}
	gomod := fmt.Sprintf("module %s\n\ngo %s\n", snippetModule, goV)
	gowork := fmt.Sprintf("go %s\n\nuse (\n\t./snippets\n%s)\n", goV, use.String())
	if err := os.WriteFile(filepath.Join(tmp, "snippets", "go.mod"), []byte(gomod), 0o644); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.work"), []byte(gowork), 0o644); err != nil {
		return false, err
	}

	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = filepath.Join(tmp, "snippets")
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(tmp, "go.work"), "GOFLAGS="+workspaceFlags(os.Getenv("GOFLAGS")))
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if _, exited := err.(*exec.ExitError); !exited {
			return false, err
		}
		ok = false
	}
	for _, line := range strings.SplitAfter(output.String(), "\n") {
		if pkg, found := strings.CutPrefix(strings.TrimSpace(line), "# "+snippetModule+"/"); found {
			if s, known := where[pkg]; known {
				line = fmt.Sprintf("# the snippet at %s\n", s)
			}
		}
		io.WriteString(out, relative(root, line))
	}
	return ok, nil
}

// relative shortens the absolute paths of root's files in a message to paths relative to root.
func relative(root, msg string) string {
	return strings.ReplaceAll(msg, root+string(filepath.Separator), "")
}

// workspaceFlags is GOFLAGS without -mod, which a workspace does not take but as readonly.
func workspaceFlags(goflags string) string {
	return strings.Join(slices.DeleteFunc(strings.Fields(goflags), func(f string) bool {
		return strings.HasPrefix(f, "-mod=") && f != "-mod=readonly"
	}), " ")
}
