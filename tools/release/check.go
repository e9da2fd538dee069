package main

import (
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// check lists every reason the tree cannot be released as it is; none means it can.
func check(t *tree) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, d := range published {
		if !slices.Contains(t.modules, d) {
			add("published module %s has no go.mod", d)
		}
	}
	for _, dir := range t.modules {
		isPublished := slices.Contains(published, dir)
		if !isPublished && !slices.Contains(internal, dir) {
			add("module %s is neither published nor internal: add it to one of the lists in tools/release/tree.go", dir)
			continue
		}
		mf, err := t.readModFile(dir)
		if err != nil {
			add("%v", err)
			continue
		}
		if mf.Module == nil || mf.Module.Mod.Path != modulePath(dir) {
			add("%s/go.mod: module path must be %s", dir, modulePath(dir))
		}
		if mf.Go == nil || mf.Go.Version != minGo {
			add("%s/go.mod: go directive must be %s, the one minimum Go version", dir, minGo)
		}
		if isPublished && mf.Toolchain != nil {
			add("%s/go.mod: a published module has no toolchain line (users' builds ignore it)", dir)
		}
		required := map[string]bool{}
		for _, r := range mf.Require {
			p := r.Mod.Path
			if p != modulePrefix && !strings.HasPrefix(p, modulePrefix+"/") {
				continue
			}
			target := dirOf(p)
			required[p] = true
			if !slices.Contains(published, target) {
				add("%s/go.mod requires %s, which is not a published module", dir, p)
			}
			if r.Mod.Version != "v"+t.version {
				add("%s/go.mod requires %s %s; it must be v%s, the SDK's Version", dir, p, r.Mod.Version, t.version)
			}
		}
		replaced := map[string]bool{}
		for _, r := range mf.Replace {
			p := r.Old.Path
			if !required[p] {
				if isPublished {
					add("%s/go.mod replaces %s: users' builds ignore it, so a published module replaces only the repository's modules it requires", dir, p)
				}
				continue
			}
			replaced[p] = true
			want := dirOf(p)
			if r.Old.Version != "" || !modfileIsDir(r.New.Path) || path.Clean(path.Join(dir, filepath.ToSlash(r.New.Path))) != want {
				add("%s/go.mod: the replace of %s must be by the directory %s, so development builds use the tree", dir, p, want)
			}
		}
		for p := range required {
			if !replaced[p] {
				add("%s/go.mod requires %s without a replace by its directory: development builds would not use the tree", dir, p)
			}
		}
		if dir == "." && len(mf.Replace) > 0 {
			add("go.mod: the root module has no replace: `go install .../cmd/infergate@version` refuses a module with one")
		}
	}
	slices.Sort(problems)
	return problems
}

// dirOf is the directory, relative to the repository's root, of the module with path p.
func dirOf(p string) string {
	if p == modulePrefix {
		return "."
	}
	return strings.TrimPrefix(p, modulePrefix+"/")
}

// modfileIsDir reports whether a replacement path names a directory, as the go command decides.
func modfileIsDir(p string) bool {
	return strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || p == "." || p == ".." || filepath.IsAbs(p)
}

// checkReleaseMoment lists what must hold only at the moment of tagging.
func checkReleaseMoment(t *tree) []string {
	var problems []string
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = t.root
	out, err := cmd.Output()
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("git status: %v", err))
	case len(out) > 0:
		problems = append(problems, "the work tree has uncommitted changes: commit them, so the tags name what was checked")
	}
	for _, tg := range t.tags() {
		cmd := exec.Command("git", "tag", "--list", tg)
		cmd.Dir = t.root
		out, err := cmd.Output()
		if err != nil {
			problems = append(problems, fmt.Sprintf("git tag: %v", err))
			continue
		}
		if strings.TrimSpace(string(out)) != "" {
			problems = append(problems, fmt.Sprintf("tag %s exists: a version is released once; raise Version", tg))
		}
	}
	return problems
}
