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

// listPackage returns the sorted lines of the exported API of the package in dir, known to users
// as importPath. A directory without Go files, or holding a command, has no API and gives nil.
func listPackage(dir, importPath string) ([]string, error) {
	bp, err := build.Default.ImportDir(dir, 0)
	var noGo *build.NoGoError
	if errors.As(err, &noGo) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if bp.Name == "main" {
		return nil, nil
	}
	fset := token.NewFileSet()
	l := lister{prefix: "pkg " + importPath + ", ", root: bp.Name}
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			l.decl(d)
		}
	}
	slices.Sort(l.lines)
	return slices.Compact(l.lines), nil
}

type lister struct {
	prefix string // "pkg path, "
	root   string // the package's name
	lines  []string
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
