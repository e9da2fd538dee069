package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"slices"
	"strings"
)

// standardNames are the names every snippet may use without declaring them, with their types and
// the packages those need.
var standardNames = map[string]struct{ decl, pkg string }{
	"ctx":    {"ctx context.Context", "context"},
	"client": {"client *infergate.Client", "infergate"},
	"req":    {"req infergate.ChatRequest", "infergate"},
}

// wrap returns the Go file that compiles s, whose Markdown file is at path (absolute): //line
// directives point each line of the snippet and of its prelude at its place in that file. names
// maps the package names a snippet may use without importing them to their import paths. A syntax
// error is returned at its place in the Markdown file.
func wrap(s snippet, path string, names map[string]string) (string, error) {
	if isCompleteFile(s.code) {
		return directive(path, s.line) + s.code + "\n", nil
	}
	prelude, preludeImports := splitImports(s.prelude, path, s.preludeLine)
	code, codeImports := splitImports(s.code, path, s.line)

	// Parse without the names the snippet may leave undeclared, to learn which it leaves so.
	shell := file{path: path, snippet: s, prelude: prelude, code: code, imports: append(preludeImports, codeImports...)}
	parsed, err := shell.parse()
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	for _, id := range parsed.Unresolved {
		seen[id.Name] = true
	}
	imported := map[string]bool{}
	for _, spec := range parsed.Imports {
		imported[importName(spec)] = true
	}
	needs := func(name string) {
		if !imported[name] {
			if p, ok := names[name]; ok {
				shell.imports = append(shell.imports, fmt.Sprintf("%s %q", name, p))
				imported[name] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(standardNames)) {
		if seen[name] {
			shell.vars = append(shell.vars, standardNames[name].decl)
			needs(standardNames[name].pkg)
		}
	}
	ast.Inspect(parsed, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && seen[id.Name] {
				needs(id.Name)
			}
		}
		return true
	})
	if shell.body {
		shell.handed = topLevelNames(parsed)
	}
	return shell.source(), nil
}

// file is the Go file made of one snippet.
type file struct {
	path    string
	snippet snippet
	prelude string   // the prelude's declarations, its imports blanked out
	code    string   // the snippet, its imports blanked out
	imports []string // import specs: the snippet's, its prelude's, and those added for it
	vars    []string // the standard names it uses
	body    bool     // code is statements, the body of a function
	handed  []string // the variables the statements declare at their top level
}

// bodyName is the function whose body a snippet of statements is.
const bodyName = "snippet"

// parse parses the file as declarations and, when that fails, as statements, and keeps the way
// that parses; when neither does, it returns the error that comes later in the snippet, which is
// the one the way the snippet was meant to be read ran into.
func (f *file) parse() (*ast.File, error) {
	f.body = false
	asDecls, declErr := parser.ParseFile(token.NewFileSet(), f.path, f.source(), parser.AllErrors)
	if declErr == nil {
		return asDecls, nil
	}
	f.body = true
	asBody, bodyErr := parser.ParseFile(token.NewFileSet(), f.path, f.source(), parser.AllErrors)
	if bodyErr == nil {
		return asBody, nil
	}
	d, b := firstError(declErr).Pos, firstError(bodyErr).Pos
	if d.Line > b.Line || d.Line == b.Line && d.Column > b.Column {
		return nil, firstError(declErr)
	}
	return nil, firstError(bodyErr)
}

// firstError is the first error of a parse, which reads as file:line:col: message.
func firstError(err error) *scanner.Error {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		return list[0]
	}
	return &scanner.Error{Msg: err.Error()}
}

// source writes the file.
func (f *file) source() string {
	var b strings.Builder
	b.WriteString("package " + bodyName + "\n\n")
	for _, spec := range f.imports {
		b.WriteString("import " + spec + "\n")
	}
	for _, v := range f.vars {
		b.WriteString("var " + v + "\n")
	}
	if f.snippet.preludeLine > 0 {
		b.WriteString(directive(f.path, f.snippet.preludeLine) + f.prelude + "\n")
	}
	if f.body {
		b.WriteString("func " + bodyName + "() error {\n")
	}
	b.WriteString(directive(f.path, f.snippet.line) + f.code + "\n")
	if f.body {
		for _, name := range f.handed {
			b.WriteString("\t_ = " + name + "\n")
		}
		b.WriteString("\treturn nil\n}\n")
	}
	return b.String()
}

// directive is a //line directive that places the next line at line of path, column 1.
func directive(path string, line int) string {
	return fmt.Sprintf("//line %s:%d:1\n", path, line)
}

// splitImports blanks out the import declarations a piece of Go text without a package clause
// starts with, keeping its lines where they were, and returns them as import specs, each with a
// //line directive placing it at its line of path, where the text starts at line.
func splitImports(text, path string, line int) (rest string, specs []string) {
	const clause = "package p;"
	src := clause + text
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
	if err != nil || len(f.Imports) == 0 {
		return text, nil // a syntax error is reported once the whole text is parsed
	}
	blanked := []byte(text)
	for _, decl := range f.Decls {
		for i := fset.Position(decl.Pos()).Offset; i < fset.Position(decl.End()).Offset; i++ {
			if blanked[i-len(clause)] != '\n' {
				blanked[i-len(clause)] = ' '
			}
		}
	}
	for _, spec := range f.Imports {
		pos, end := fset.Position(spec.Pos()), fset.Position(spec.End())
		col := pos.Column
		if pos.Line == 1 {
			col -= len(clause)
		}
		specs = append(specs, fmt.Sprintf("(\n//line %s:%d:%d\n%s\n)", path, line+pos.Line-1, col, src[pos.Offset:end.Offset]))
	}
	return string(blanked), specs
}

// isCompleteFile reports whether Go text starts with a package clause, past comments.
func isCompleteFile(text string) bool {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(text)), []byte(text), nil, 0)
	_, tok, _ := s.Scan()
	return tok == token.PACKAGE
}

// importName is the name a file refers to an import by.
func importName(spec *ast.ImportSpec) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	p := strings.Trim(spec.Path.Value, "`\"")
	return p[strings.LastIndex(p, "/")+1:]
}

// topLevelNames are the variables the body of the snippet function declares at its top level.
func topLevelNames(f *ast.File) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.Name != "_" && !slices.Contains(names, id.Name) {
			names = append(names, id.Name)
		}
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Name.Name != bodyName || fn.Body == nil {
			continue
		}
		for _, stmt := range fn.Body.List {
			switch st := stmt.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, lhs := range st.Lhs {
						if id, ok := lhs.(*ast.Ident); ok {
							add(id)
						}
					}
				}
			case *ast.DeclStmt:
				if gen, ok := st.Decl.(*ast.GenDecl); ok && gen.Tok == token.VAR {
					for _, spec := range gen.Specs {
						for _, id := range spec.(*ast.ValueSpec).Names {
							add(id)
						}
					}
				}
			}
		}
	}
	return names
}
