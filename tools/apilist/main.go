// Command apilist lists the exported API of every published module of the repository, one
// declaration per line in the spirit of Go's own api/go1.*.txt files, and checks a tree against
// that listing.
//
//	go run ./apilist -root .. -w        # write api/<module>.txt from the tree
//	go run ./apilist -root .. -check    # fail, with a diff, when the tree's API differs from api/
//	go run ./apilist -root .. -release  # at a release: the listing becomes api/release/, the baseline
//
// -check also reads api/release/<module>.txt, the API at the last release: every line of it that the
// tree no longer has (a removal, or a changed signature) must have its name under "### Breaking" in
// the "## [Unreleased]" section of CHANGELOG.md. It also fails on an exported field of an exported
// struct type that has neither a doc comment nor a line comment. See api/README.md for the format
// and the rules.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// unpublished are the top-level directories whose modules and packages are the repository's own:
// nobody imports them, so they have no API to keep.
var unpublished = []string{"benchmarks", "cmd", "crosscheck", "examples", "tools"}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("apilist", flag.ContinueOnError)
	flags.SetOutput(stderr)
	root := flags.String("root", ".", "the repository's root directory")
	write := flags.Bool("w", false, "write api/<module>.txt from the tree")
	check := flags.Bool("check", false, "compare the tree's API with api/ and the changelog, and check that exported fields are documented; exit 1 on a difference or an undocumented field")
	release := flags.Bool("release", false, "write api/release/<module>.txt, the baseline of the next -check")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if n := btoi(*write) + btoi(*check) + btoi(*release); n != 1 || flags.NArg() > 0 {
		fmt.Fprintln(stderr, "apilist: give exactly one of -w, -check or -release")
		flags.Usage()
		return 2
	}
	mods, err := modules(*root)
	if err != nil {
		fmt.Fprintln(stderr, "apilist:", err)
		return 1
	}
	apiDir := filepath.Join(*root, "api")
	switch {
	case *write:
		err = writeListings(mods, apiDir)
	case *release:
		err = writeListings(mods, filepath.Join(apiDir, "release"))
	default:
		var ok bool
		ok, err = checkListings(mods, *root, stdout)
		if err == nil && !ok {
			return 1
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "apilist:", err)
		return 1
	}
	return 0
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// module is one published module: its path, its directory, its listing and its exported fields
// without a doc comment.
type module struct {
	path         string
	dir          string
	lines        []string
	undocumented []undocumented // file names relative to the repository's root
}

// file is the listing's file name: the module path's last element.
func (m module) file() string { return m.path[strings.LastIndex(m.path, "/")+1:] + ".txt" }

// modules finds every published module under root (the root's own and every nested go.mod outside
// the unpublished directories) and lists its API.
func modules(root string) ([]module, error) {
	var mods []module
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(root, p) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" {
			return nil
		}
		mp, err := modulePath(p)
		if err != nil {
			return err
		}
		mods = append(mods, module{path: mp, dir: filepath.Dir(p)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("no go.mod under %s", root)
	}
	for i := range mods {
		if mods[i].lines, mods[i].undocumented, err = listModule(root, mods[i]); err != nil {
			return nil, err
		}
	}
	return mods, nil
}

// skipDir says which directories hold no published API: the unpublished top-level ones, and, at
// any depth, internal packages, examples, test data and hidden directories.
func skipDir(root, p string) bool {
	name := filepath.Base(p)
	if name == "internal" || name == "testdata" || name == "examples" || name == "vendor" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && slices.Contains(unpublished, filepath.ToSlash(rel))
}

// modulePath reads the module directive of a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s: no module directive", gomod)
}

// listModule lists every package of the module, leaving out nested modules' directories and those
// skipDir leaves out of the repository at root, and finds its exported fields without a doc comment.
func listModule(root string, m module) ([]string, []undocumented, error) {
	var all []string
	var missing []undocumented
	err := filepath.WalkDir(m.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if p != m.dir {
			if skipDir(root, p) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		rel, err := filepath.Rel(m.dir, p)
		if err != nil {
			return err
		}
		ip := m.path
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		api, err := listPackage(p, ip)
		all = append(all, api.lines...)
		for _, u := range api.undocumented {
			if rel, err := filepath.Rel(root, u.file); err == nil {
				u.file = filepath.ToSlash(rel)
			}
			missing = append(missing, u)
		}
		return err
	})
	slices.Sort(all)
	return all, missing, err
}

func writeListings(mods []module, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, m := range mods {
		text := strings.Join(m.lines, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, m.file()), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readListing reads a listing file; a missing file is an empty listing and reported as missing.
func readListing(p string) ([]string, bool, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var lines []string
	for l := range strings.SplitSeq(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return lines, true, nil
}

// diff gives the lines of want missing from got (removed) and those of got missing from want (added).
func diff(want, got []string) (removed, added []string) {
	for _, l := range want {
		if _, found := slices.BinarySearch(got, l); !found {
			removed = append(removed, l)
		}
	}
	for _, l := range got {
		if _, found := slices.BinarySearch(want, l); !found {
			added = append(added, l)
		}
	}
	return removed, added
}

const (
	hintWrite    = "If the change is meant, run (cd tools && go run ./apilist -w -root ..) and commit api/ with it."
	hintBreaking = `A removed line or a changed signature must also be named under "### Breaking" in the
"## [Unreleased]" section of CHANGELOG.md (see api/README.md).`
)

// checkListings compares each module's API with its listing, and the removals since the last
// release with the changelog. It reports every difference before saying whether there was one.
func checkListings(mods []module, root string, out io.Writer) (bool, error) {
	ok := true
	apiDir := filepath.Join(root, "api")
	for _, m := range mods {
		name := filepath.ToSlash(filepath.Join("api", m.file()))
		want, found, err := readListing(filepath.Join(apiDir, m.file()))
		if err != nil {
			return false, err
		}
		if !found {
			fmt.Fprintf(out, "%s is missing: the API of %s has no listing.\n", name, m.path)
		}
		removed, added := diff(want, m.lines)
		if len(removed)+len(added) > 0 {
			ok = false
			fmt.Fprintf(out, "The exported API of %s differs from %s:\n", m.path, name)
			for _, l := range removed {
				fmt.Fprintln(out, "-"+l)
			}
			for _, l := range added {
				fmt.Fprintln(out, "+"+l)
			}
		}
	}
	documented := checkFieldDocs(mods, out)
	breakingOK, err := checkBreaking(mods, root, out)
	if err != nil {
		return false, err
	}
	if !ok {
		fmt.Fprintln(out, hintWrite)
	}
	if !ok || !breakingOK {
		fmt.Fprintln(out, hintBreaking)
	}
	return ok && breakingOK && documented, nil
}

// checkFieldDocs reports every exported field of an exported struct type, in any published module,
// that has neither a doc comment nor a line comment (see api/README.md), and says whether there
// was none.
func checkFieldDocs(mods []module, out io.Writer) bool {
	n := 0
	for _, m := range mods {
		n += len(m.undocumented)
	}
	if n == 0 {
		return true
	}
	fmt.Fprintf(out, "%d exported struct fields have no doc comment (a // comment above the field or after it on its line):\n", n)
	for _, m := range mods {
		for _, u := range m.undocumented {
			fmt.Fprintf(out, "%s:%d: %s\n", u.file, u.line, u.name)
		}
	}
	return false
}
