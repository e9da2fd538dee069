package main

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// rehearse publishes every published module at Version into a file-system proxy, then installs
// each on its own into an empty module outside the repository, as a user would once the tags are
// pushed, and installs and runs the command. Any failing step fails the rehearsal.
func rehearse(t *tree, log io.Writer) error {
	start := time.Now()
	v := "v" + t.version
	tmp, err := os.MkdirTemp("", "infergate-rehearsal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	proxyDir := filepath.Join(tmp, "proxy")
	for _, d := range published {
		mv := module.Version{Path: modulePath(d), Version: v}
		if err := publish(proxyDir, filepath.Join(t.root, filepath.FromSlash(d)), mv, start); err != nil {
			return fmt.Errorf("publishing %s: %w", modulePath(d), err)
		}
	}
	fmt.Fprintf(log, "published %d modules at %s into %s\n", len(published), v, proxyDir)

	modCache, err := rehearsalModCache()
	if err != nil {
		return err
	}
	env, err := consumerEnv(proxyDir, modCache, tmp)
	if err != nil {
		return err
	}
	for i, d := range published {
		dir := filepath.Join(tmp, fmt.Sprintf("consumer%d", i))
		if err := consume(env, dir, modulePath(d), v, log); err != nil {
			return fmt.Errorf("%s@%s on its own: %w", modulePath(d), v, err)
		}
	}
	if err := installCommand(env, tmp, v, log); err != nil {
		return err
	}
	fmt.Fprintf(log, "rehearsal passed in %.1f s\n", time.Since(start).Seconds())
	return nil
}

// rehearsalModCache is the module cache the consumers use: one of the rehearsal's own, so that its
// versions never reach the developer's cache, where they would shadow the real release. It stays
// at one place between runs, so builds hit the build cache (whose keys hold source paths), but the
// repository's modules are removed from it first, so every run installs what it just published.
func rehearsalModCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	cache := filepath.Join(dir, "infergate-go-rehearsal", "modcache")
	// The root module is extracted beside the directory of the nested ones, as
	// infergate-go@<version>: a copy left from an earlier run would be built instead of the new one.
	stale, err := filepath.Glob(filepath.Join(cache, filepath.FromSlash(modulePrefix)+"@*"))
	if err != nil {
		return "", err
	}
	for _, sub := range []string{modulePrefix, path.Join("cache", "download", modulePrefix)} {
		stale = append(stale, filepath.Join(cache, filepath.FromSlash(sub)))
	}
	for _, d := range stale {
		if err := os.RemoveAll(d); err != nil {
			return "", err
		}
	}
	return cache, nil
}

// consumerEnv is the environment of a user's go command with our modules served by proxyDir only:
// third-party modules come from the local module cache, else the configured proxy.
func consumerEnv(proxyDir, modCache, tmp string) ([]string, error) {
	out, err := exec.Command("go", "env", "GOPROXY", "GOMODCACHE").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("go env: unexpected output %q", out)
	}
	cache := fileURL(filepath.Join(lines[1], "cache", "download"))
	drop := []string{"GOFLAGS", "GOPROXY", "GONOPROXY", "GOPRIVATE", "GONOSUMDB", "GOMODCACHE", "GOWORK", "GOBIN",
		"GODEBUG", "INFERGATE_API_KEY", "INFERGATE_BASE_URL", "INFERGATE_ACCESS_TOKEN"}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, name)
	})
	return append(env,
		"GOPROXY="+fileURL(proxyDir)+","+cache+","+lines[0],
		// The rehearsal's zips are not in the checksum database; everything else is checked.
		"GONOSUMDB="+modulePrefix,
		"GOFLAGS=-mod=mod -modcacherw",
		"GOMODCACHE="+modCache,
		"GOWORK=off",
		"GOBIN="+filepath.Join(tmp, "bin"),
		"GODEBUG="+withoutModuleIndex(os.Getenv("GODEBUG")),
	), nil
}

// withoutModuleIndex adds goindex=0 to a GODEBUG value. The go command indexes a module of the
// module cache once per directory, trusting a version never to change, and keeps that index in the
// build cache; every rehearsal republishes the same version with new files, so a kept index would
// build an earlier rehearsal's file list.
func withoutModuleIndex(godebug string) string {
	if godebug == "" {
		return "goindex=0"
	}
	return godebug + ",goindex=0"
}

// fileURL is the file:// URL of a local directory, as GOPROXY takes it.
func fileURL(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// consume is a user's first use of one module: in an empty module declaring the minimum Go,
// go get it, build and run a program importing every one of its importable packages, and check
// that the build list holds the repository's modules at v only and that the go line did not move.
func consume(env []string, dir, modPath, v string, log io.Writer) error {
	start := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	gomod := fmt.Sprintf("module example.com/consumer\n\ngo %s\n", minGo)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	if _, err := goCmd(env, dir, "get", modPath+"@"+v); err != nil {
		return err
	}
	out, err := goCmd(env, dir, "list", "-f", "{{.ImportPath}}\t{{.Name}}\t{{with .Module}}{{.Path}}{{end}}", modPath+"/...")
	if err != nil {
		return err
	}
	pkgs := importable(string(out), modPath)
	if len(pkgs) == 0 {
		return fmt.Errorf("no importable package found in %s", modPath)
	}
	var src bytes.Buffer
	src.WriteString("// Command consumer imports every package of one module, as a user's program would.\npackage main\n\nimport (\n")
	for _, p := range pkgs {
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), src.Bytes(), 0o644); err != nil {
		return err
	}
	if _, err := goCmd(env, dir, "mod", "tidy"); err != nil {
		return err
	}
	if _, err := goCmd(env, dir, "build", "-o", "consumer", "."); err != nil {
		return err
	}
	if _, err := runIn(env, dir, filepath.Join(dir, "consumer")); err != nil {
		return err
	}
	if err := checkConsumerModFile(filepath.Join(dir, "go.mod"), v); err != nil {
		return err
	}
	fmt.Fprintf(log, "%s@%s alone: go get, %d packages built and run, in %.1f s\n",
		modPath, v, len(pkgs), time.Since(start).Seconds())
	return nil
}

// importable picks, from `go list` lines "import path<TAB>name<TAB>module", the packages of
// modPath that another module can import: not commands, not internal.
func importable(list, modPath string) []string {
	var pkgs []string
	for line := range strings.SplitSeq(strings.TrimSpace(list), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[2] != modPath || f[1] == "main" {
			continue
		}
		if slices.Contains(strings.Split(f[0], "/"), "internal") {
			continue
		}
		pkgs = append(pkgs, f[0])
	}
	return pkgs
}

// checkConsumerModFile fails unless the consumer's go.mod keeps the minimum Go, has no toolchain
// line, and requires each of the repository's modules at v.
func checkConsumerModFile(name, v string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	mf, err := modfile.Parse(name, data, nil)
	if err != nil {
		return err
	}
	if mf.Go == nil || mf.Go.Version != minGo || mf.Toolchain != nil {
		return fmt.Errorf("the consumer's go.mod moved off go %s:\n%s", minGo, data)
	}
	for _, r := range mf.Require {
		if (r.Mod.Path == modulePrefix || strings.HasPrefix(r.Mod.Path, modulePrefix+"/")) && r.Mod.Version != v {
			return fmt.Errorf("the consumer requires %s %s, not %s", r.Mod.Path, r.Mod.Version, v)
		}
	}
	return nil
}

// installCommand installs the command as its README says, outside any module, and runs it with no
// key and no address, which answers from the built-in fake gateway.
func installCommand(env []string, tmp, v string, log io.Writer) error {
	start := time.Now()
	pkg := modulePrefix + "/cmd/infergate@" + v
	if _, err := goCmd(env, tmp, "install", pkg); err != nil {
		return err
	}
	bin := filepath.Join(tmp, "bin", "infergate")
	out, err := runIn(env, tmp, bin, "health")
	if err != nil {
		return err
	}
	if !bytes.Contains(out, []byte("healthy")) {
		return fmt.Errorf("infergate health printed no health:\n%s", out)
	}
	fmt.Fprintf(log, "go install %s, then `infergate health` offline: ok, in %.1f s\n", path.Base(pkg), time.Since(start).Seconds())
	return nil
}

// goCmd runs the go command in dir with env.
func goCmd(env []string, dir string, args ...string) ([]byte, error) {
	return runIn(env, dir, "go", args...)
}

// runIn runs a program and returns its standard output; a failure carries the command line and
// everything it printed.
func runIn(env []string, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes(), nil
}
