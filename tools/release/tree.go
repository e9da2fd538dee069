package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// modulePrefix is the root module's path; every module of the repository lives under it.
const modulePrefix = "github.com/infergate/infergate-go"

// minGo is the one minimum Go version: the oldest release CI tests, and what the OpenTelemetry
// SDK (go.opentelemetry.io/otel v1.47) already demands of otelinfergate. Every module declares it,
// so a user whose module says go 1.26.0 is not moved to a newer Go by adding any of ours.
const minGo = "1.26.0"

// published are the directories of the modules users install; each is tagged at every release.
// A new module must be added here or to internal, or check fails.
var published = []string{".", "einoinfergate", "genkitinfergate", "lcinfergate", "mcptools", "otelinfergate", "redisinfergate", "temporalinfergate", "tokens"}

// internal are the repository's modules that are never tagged: benchmarks, cross-checks,
// examples with dependencies of their own, and the repository's tooling.
var internal = []string{"benchmarks", "crosscheck", "crosscheck/eino", "examples/mcp", "tools"}

// tree is what the checks and the rehearsal read of a repository.
type tree struct {
	root    string
	version string   // the SDK's Version constant, without the "v"
	modules []string // the directories (slash-separated, "." for the root) holding a go.mod
}

// loadTree reads the Version constant and lists the modules git knows, tracked or new.
func loadTree(root string) (*tree, error) {
	v, err := readVersion(filepath.Join(root, "client.go"))
	if err != nil {
		return nil, err
	}
	files, err := gitFiles(root, "go.mod", "*/go.mod")
	if err != nil {
		return nil, err
	}
	t := &tree{root: root, version: v}
	for _, f := range files {
		t.modules = append(t.modules, path.Dir(f))
	}
	slices.Sort(t.modules)
	t.modules = slices.Compact(t.modules)
	return t, nil
}

// readVersion returns the value of the package-level constant Version in file.
func readVersion(file string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name != "Version" || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return "", fmt.Errorf("%s: Version is not a string literal", file)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					return "", err
				}
				return v, validVersion(v)
			}
		}
	}
	return "", fmt.Errorf("%s: no constant Version", file)
}

// validVersion accepts what can become a tag of these module paths: canonical semantic versions
// of major 0 or 1 (a v2 would need /v2 in every module path).
func validVersion(v string) error {
	sv := "v" + v
	if !semver.IsValid(sv) || semver.Canonical(sv) != sv {
		return fmt.Errorf("Version %q is not a canonical semantic version (like 1.2.3)", v)
	}
	if m := semver.Major(sv); m != "v0" && m != "v1" {
		return fmt.Errorf("Version %q: major %s needs /%s in every module path", v, m, m)
	}
	return nil
}

// modulePath is the module path a module in dir must declare.
func modulePath(dir string) string {
	if dir == "." {
		return modulePrefix
	}
	return modulePrefix + "/" + dir
}

// tag is the git tag that releases the module in dir at version v (without "v").
func tag(dir, v string) string {
	if dir == "." {
		return "v" + v
	}
	return dir + "/v" + v
}

// tags are the tags a release of t creates, one per published module.
func (t *tree) tags() []string {
	var out []string
	for _, d := range published {
		out = append(out, tag(d, t.version))
	}
	return out
}

// readModFile parses the go.mod of the module in dir.
func (t *tree) readModFile(dir string) (*modfile.File, error) {
	name := filepath.Join(t.root, filepath.FromSlash(dir), "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(name, data, nil)
}

// gitFiles lists the files under dir matching the patterns that are tracked or new (not ignored),
// relative to dir and slash-separated: what the next commit, and so a tag, would hold.
func gitFiles(dir string, patterns ...string) ([]string, error) {
	args := append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"}, patterns...)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", dir, err)
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if f == "" {
			continue
		}
		// A tracked file deleted in the work tree is not part of the next commit.
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			continue
		}
		files = append(files, f)
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}
