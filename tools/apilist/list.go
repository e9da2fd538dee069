package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
)

// packageAPI is what listPackage finds in a package: its API and the exported fields that lack a
// doc comment.
type packageAPI struct {
	lines        []string // sorted, one declaration a line
	undocumented []undocumented
}

// undocumented is an exported field of an exported struct type with neither a doc comment nor a
// line comment, where it is declared.
type undocumented struct {
	file string // as the file was opened: dir joined with its name
	line int
	name string // Type.Field, or Type.Field.Inner for a field of an anonymous struct
}

// listPackage lists the exported API of the package in dir, known to users as importPath, and the
// exported fields it leaves undocumented. A directory without Go files, or holding a command, has
// no API and gives nothing.
func listPackage(dir, importPath string) (packageAPI, error) {
	bp, err := build.Default.ImportDir(dir, 0)
	var noGo *build.NoGoError
	if errors.As(err, &noGo) {
		return packageAPI{}, nil
	}
	if err != nil {
		return packageAPI{}, err
	}
	if bp.Name == "main" {
		return packageAPI{}, nil
	}
	l := lister{prefix: "pkg " + importPath + ", ", root: bp.Name, fset: token.NewFileSet()}
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(l.fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return packageAPI{}, err
		}
		for _, d := range f.Decls {
			l.decl(d)
		}
	}
	slices.Sort(l.lines)
	return packageAPI{lines: slices.Compact(l.lines), undocumented: l.undocumented}, nil
}

type lister struct {
	prefix       string // "pkg path, "
	root         string // the package's name
	fset         *token.FileSet
	lines        []string
	undocumented []undocumented
}

func (l *lister) add(format string, args ...any) {
	l.lines = append(l.lines, l.prefix+fmt.Sprintf(format, args...))
}

func (l *lister) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		l.funcDecl(d)
	case *ast.GenDecl:
		switch d.Tok {
		case token.CONST:
			l.constDecl(d)
		case token.VAR:
			l.varDecl(d)
		case token.TYPE:
			for _, s := range d.Specs {
				l.typeSpec(s.(*ast.TypeSpec))
			}
		}
	}
}

func (l *lister) funcDecl(d *ast.FuncDecl) {
	if !d.Name.IsExported() {
		return
	}
	var b strings.Builder
	if d.Recv != nil && len(d.Recv.List) == 1 {
		recv := d.Recv.List[0].Type
		if !token.IsExported(embeddedName(recv)) {
			return
		}
		b.WriteString("method (" + typeString(recv) + ") ")
	} else {
		b.WriteString("func ")
	}
	b.WriteString(d.Name.Name)
	writeTypeParams(&b, d.Type.TypeParams)
	writeSignature(&b, d.Type)
	l.add("%s", b.String())
}

// constDecl lists each exported constant with its type, and its value when the value is a literal.
// Within a group, a spec without type or value repeats the previous one's, as the language does; a
// value built from iota is not written, since the AST alone does not evaluate it.
func (l *lister) constDecl(d *ast.GenDecl) {
	var typ ast.Expr
	var values []ast.Expr
	for _, s := range d.Specs {
		vs := s.(*ast.ValueSpec)
		if vs.Type != nil || len(vs.Values) > 0 {
			typ, values = vs.Type, vs.Values
		}
		for i, n := range vs.Names {
			if !n.IsExported() {
				continue
			}
			var v ast.Expr
			if i < len(values) {
				v = values[i]
			}
			line := "const " + n.Name
			switch {
			case typ != nil:
				line += " " + typeString(typ)
			case untypedKind(v) != "":
				line += " untyped " + untypedKind(v)
			default:
				line += " = " + types.ExprString(v)
				l.add("%s", line)
				continue
			}
			// The SDK's version changes with every release and is not API.
			if lit := literal(v); lit != "" && n.Name != "Version" {
				line += " = " + lit
			}
			l.add("%s", line)
		}
	}
}

// untypedKind is the kind of an untyped constant expression made of literals, or "" when the
// expression needs evaluating.
func untypedKind(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.BasicLit:
		switch v.Kind {
		case token.INT:
			return "int"
		case token.FLOAT:
			return "float"
		case token.IMAG:
			return "complex"
		case token.CHAR:
			return "rune"
		case token.STRING:
			return "string"
		}
	case *ast.Ident:
		if v.Name == "true" || v.Name == "false" {
			return "bool"
		}
	case *ast.UnaryExpr:
		return untypedKind(v.X)
	case *ast.ParenExpr:
		return untypedKind(v.X)
	}
	return ""
}

// literal is a constant's value written as in the source when it is a literal, maybe negated.
func literal(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.BasicLit:
		return v.Value
	case *ast.Ident:
		if v.Name == "true" || v.Name == "false" {
			return v.Name
		}
	case *ast.UnaryExpr:
		if s := literal(v.X); s != "" {
			return v.Op.String() + s
		}
	}
	return ""
}

// varDecl lists each exported variable with its type: the declared one, or the one its value
// plainly has (a composite literal, an error made by errors.New or fmt.Errorf, or an Err name
// taken from elsewhere); otherwise the value's expression stands in for the type.
func (l *lister) varDecl(d *ast.GenDecl) {
	for _, s := range d.Specs {
		vs := s.(*ast.ValueSpec)
		for i, n := range vs.Names {
			if !n.IsExported() {
				continue
			}
			if vs.Type != nil {
				l.add("var %s %s", n.Name, typeString(vs.Type))
				continue
			}
			var v ast.Expr
			if i < len(vs.Values) && len(vs.Values) == len(vs.Names) {
				v = vs.Values[i]
			}
			if t := valueType(n.Name, v); t != "" {
				l.add("var %s %s", n.Name, t)
			} else {
				l.add("var %s = %s", n.Name, types.ExprString(v))
			}
		}
	}
}

func valueType(name string, v ast.Expr) string {
	switch e := v.(type) {
	case *ast.CompositeLit:
		return typeString(e.Type)
	case *ast.UnaryExpr:
		if c, ok := e.X.(*ast.CompositeLit); ok && e.Op == token.AND {
			return "*" + typeString(c.Type)
		}
	case *ast.CallExpr:
		if f := types.ExprString(e.Fun); f == "errors.New" || f == "fmt.Errorf" {
			return "error"
		}
	}
	if strings.HasPrefix(name, "Err") {
		return "error"
	}
	return ""
}

func (l *lister) typeSpec(s *ast.TypeSpec) {
	if !s.Name.IsExported() {
		return
	}
	var b strings.Builder
	b.WriteString("type " + s.Name.Name)
	writeTypeParams(&b, s.TypeParams)
	head := b.String()
	if s.Assign.IsValid() {
		l.add("%s = %s", head, typeString(s.Type))
		return
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		l.add("%s struct", head)
		l.findUndocumented(s.Name.Name, t)
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 {
				if token.IsExported(embeddedName(f.Type)) {
					l.add("%s struct, embedded %s", head, typeString(f.Type))
				}
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					l.add("%s struct, %s %s", head, n.Name, typeString(f.Type))
				}
			}
		}
	case *ast.InterfaceType:
		l.interfaceType(head, t)
	default:
		l.add("%s %s", head, typeString(s.Type))
	}
}

// findUndocumented records the exported fields of the struct type t, named name, that have neither a
// doc comment nor a line comment: go/doc shows either beside the field, so either documents it. A
// comment holding only directives (//nolint:…, //go:…) documents nothing. An embedded type is
// documented where it is declared and needs no comment here. The exported fields of an anonymous
// struct in a field's type (Paid struct{…}, []struct{…}) are API too and are checked the same way.
func (l *lister) findUndocumented(name string, t *ast.StructType) {
	for _, f := range t.Fields.List {
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			if f.Doc.Text() == "" && f.Comment.Text() == "" {
				pos := l.fset.Position(n.Pos())
				l.undocumented = append(l.undocumented, undocumented{file: pos.Filename, line: pos.Line, name: name + "." + n.Name})
			}
			if inner := anonymousStruct(f.Type); inner != nil {
				l.findUndocumented(name+"."+n.Name, inner)
			}
		}
	}
}

// anonymousStruct is the struct type literal a field's type is, or holds as its element, or nil.
func anonymousStruct(e ast.Expr) *ast.StructType {
	for {
		switch t := e.(type) {
		case *ast.StructType:
			return t
		case *ast.StarExpr:
			e = t.X
		case *ast.ArrayType:
			e = t.Elt
		case *ast.MapType:
			e = t.Value
		case *ast.ChanType:
			e = t.Value
		case *ast.ParenExpr:
			e = t.X
		default:
			return nil
		}
	}
}

// interfaceType lists an interface's method set on its type line too, since adding a method breaks
// every implementation outside the package.
func (l *lister) interfaceType(head string, t *ast.InterfaceType) {
	var names []string
	hidden := false
	for _, f := range t.Methods.List {
		if len(f.Names) == 0 {
			switch f.Type.(type) {
			case *ast.BinaryExpr, *ast.UnaryExpr: // a constraint's union or ~T: a type set, not an embedding
				l.add("%s interface, %s", head, typeString(f.Type))
			default:
				l.add("%s interface, embedded %s", head, typeString(f.Type))
			}
			names = append(names, typeString(f.Type))
			continue
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				hidden = true
				continue
			}
			var sig strings.Builder
			if ft, ok := f.Type.(*ast.FuncType); ok {
				writeSignature(&sig, ft)
			}
			l.add("%s interface, %s%s", head, n.Name, sig.String())
			names = append(names, n.Name)
		}
	}
	slices.Sort(names)
	if hidden {
		names = append(names, "unexported methods")
		l.add("%s interface, unexported methods", head)
	}
	if len(names) == 0 {
		l.add("%s interface {}", head)
		return
	}
	l.add("%s interface { %s }", head, strings.Join(names, ", "))
}
