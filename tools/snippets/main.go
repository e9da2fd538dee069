// Command snippets checks that every Go snippet of the repository's documentation compiles against
// the repository's modules as they are in the tree.
//
//	go run ./snippets -root ..            # README.md, CONTRIBUTING.md and docs/**/*.md
//	go run ./snippets -root .. docs/x.md  # only the files named, relative to the root
//
// A snippet is a fenced block whose info string is "go". The checker writes each snippet into a
// package of its own in a temporary module, puts that module and every module of the repository in
// a go.work, and builds the lot with the go command. Errors are reported at the snippet's place in
// the Markdown file (README.md:128:5: undefined: foo), through //line directives.
//
// What a snippet may be:
//
//   - A complete file, starting with its package clause: compiled as it is.
//   - Declarations (types, functions, variables; a Test function, say): compiled as a file's
//     declarations.
//   - Statements: compiled as the body of a function returning error, so that "return err" works.
//     The variables a snippet declares at its top level are what it hands to the reader and need not
//     be used; inside a block (a loop, an if) Go's rules hold, so an unused variable there fails.
//
// Either kind may use ctx (a context.Context), client (an *infergate.Client) and req (an
// infergate.ChatRequest) without declaring them, and the packages the docs use by their usual names
// without importing them: the repository's packages (infergate, gatewaytest, mcptools, ...), the
// standard library's (fmt, json, http, slog, ...) and the frameworks' (llms, schema, genkit, ai, mcp,
// ...; see knownImports). A snippet may start with import declarations of its own.
//
// Anything else a snippet assumes (a function of the reader's, a value built earlier on the page)
// is declared in an HTML comment right before the fence, which Markdown does not show, whose text
// after "snippet" is Go declarations, imports included:
//
//	<!-- snippet
//	var weather *infergate.FuncTool
//	var lookUp func(ctx context.Context, city string) (string, error)
//	-->
//	```go
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("snippets", flag.ContinueOnError)
	flags.SetOutput(stderr)
	root := flags.String("root", ".", "the repository's root directory")
	keep := flags.Bool("keep", false, "keep the generated module and print where it is")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		fmt.Fprintln(stderr, "snippets:", err)
		return 1
	}
	files := flags.Args()
	if len(files) == 0 {
		if files, err = docFiles(absRoot); err != nil {
			fmt.Fprintln(stderr, "snippets:", err)
			return 1
		}
	}
	var all []snippet
	for _, rel := range files {
		text, err := os.ReadFile(filepath.Join(absRoot, filepath.FromSlash(rel)))
		if err != nil {
			fmt.Fprintln(stderr, "snippets:", err)
			return 1
		}
		found, err := extract(filepath.ToSlash(rel), string(text))
		if err != nil {
			fmt.Fprintln(stderr, "snippets:", err)
			return 1
		}
		all = append(all, found...)
	}
	ok, err := check(absRoot, all, stdout, *keep)
	if err != nil {
		fmt.Fprintln(stderr, "snippets:", err)
		return 1
	}
	if !ok {
		return 1
	}
	fmt.Fprintf(stdout, "%d Go snippets in %d Markdown files compile\n", len(all), len(files))
	return 0
}

// docFiles lists the documentation whose snippets are checked: README.md and CONTRIBUTING.md at the
// root, and every Markdown file under docs/, as slash-separated paths relative to root.
func docFiles(root string) ([]string, error) {
	var files []string
	for _, name := range []string{"README.md", "CONTRIBUTING.md"} {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			files = append(files, name)
		}
	}
	docs := filepath.Join(root, "docs")
	if _, err := os.Stat(docs); err != nil {
		return files, nil
	}
	err := filepath.WalkDir(docs, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	return files, err
}
