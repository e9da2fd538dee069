// Command release checks that the repository can be released and rehearses a release.
//
// Usage, from anywhere inside the repository:
//
//	go run ./release check [-release]   # is this tree releasable? prints the tags to create
//	go run ./release rehearse           # publish to a file-system proxy, install from it
//
// check verifies that every module is classified as published or repository-internal, that every
// module requires the repository's published modules at the SDK's Version (with a replace to the
// local directory for development), that every module declares the one minimum Go version, and,
// with -release, that the work tree is clean and none of the tags exists yet.
//
// rehearse builds, from the work tree, the module zips, .mod and .info files the go command would
// download for every published module at Version, lays them out as a GOPROXY, and then, in empty
// modules outside the repository, gets each published module on its own, builds and runs a program
// importing every one of its packages, and installs and runs the command. A consumer ignores the
// replace directives of its dependencies, so only this proves that the modules install once tagged.
// The consumers' module cache is the rehearsal's own, infergate-go-rehearsal/modcache under the user
// cache directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux), whatever GOMODCACHE
// says, so that rehearsed versions never shadow real ones; it is kept between runs and holds every
// module the consumers need, about 310 MB.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("C", "", "the repository's root (default: the git work tree holding the current directory)")
	var release *bool
	if args[0] == "check" {
		release = fs.Bool("release", false, "also require what only matters when tagging: a clean work tree and no existing tag")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	root := *repo
	if root == "" {
		out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			fmt.Fprintln(stderr, "release: not inside a git work tree; give -C")
			return 1
		}
		root = strings.TrimSpace(string(out))
	}
	t, err := loadTree(root)
	if err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 1
	}
	switch args[0] {
	case "check":
		return runCheck(t, *release, stdout, stderr)
	case "rehearse":
		if err := rehearse(t, stdout); err != nil {
			fmt.Fprintln(stderr, "release: rehearsal FAILED:", err)
			return 1
		}
		return 0
	default:
		usage(stderr)
		return 2
	}
}

func runCheck(t *tree, release bool, stdout, stderr io.Writer) int {
	problems := check(t)
	if release {
		problems = append(problems, checkReleaseMoment(t)...)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "release: the tree is not releasable at v%s:\n", t.version)
		for _, p := range problems {
			fmt.Fprintln(stderr, "  -", p)
		}
		return 1
	}
	fmt.Fprintf(stdout, "releasable at v%s; tag one commit with:\n", t.version)
	for _, tag := range t.tags() {
		fmt.Fprintln(stdout, " ", tag)
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: release check [-C dir] [-release] | release rehearse [-C dir]")
}
