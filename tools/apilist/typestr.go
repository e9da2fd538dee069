package main

import (
	"go/ast"
	"go/token"
	"strings"
)

// typeString writes a type expression in one line, with parameter names left out: names of
// parameters and results are not API, their types are.
func typeString(e ast.Expr) string {
	var b strings.Builder
	writeType(&b, e)
	return b.String()
}

func writeType(b *strings.Builder, e ast.Expr) {
	switch t := e.(type) {
	case nil:
	case *ast.Ident:
		b.WriteString(t.Name)
	case *ast.SelectorExpr:
		writeType(b, t.X)
		b.WriteByte('.')
		b.WriteString(t.Sel.Name)
	case *ast.StarExpr:
		b.WriteByte('*')
		writeType(b, t.X)
	case *ast.ParenExpr:
		b.WriteByte('(')
		writeType(b, t.X)
		b.WriteByte(')')
	case *ast.Ellipsis:
		b.WriteString("...")
		writeType(b, t.Elt)
	case *ast.ArrayType:
		b.WriteByte('[')
		writeType(b, t.Len)
		b.WriteByte(']')
		writeType(b, t.Elt)
	case *ast.MapType:
		b.WriteString("map[")
		writeType(b, t.Key)
		b.WriteByte(']')
		writeType(b, t.Value)
	case *ast.ChanType:
		switch t.Dir {
		case ast.RECV:
			b.WriteString("<-chan ")
		case ast.SEND:
			b.WriteString("chan<- ")
		default:
			b.WriteString("chan ")
		}
		writeType(b, t.Value)
	case *ast.FuncType:
		b.WriteString("func")
		writeSignature(b, t)
	case *ast.InterfaceType:
		writeInterfaceInline(b, t)
	case *ast.StructType:
		writeStructInline(b, t)
	case *ast.IndexExpr:
		writeType(b, t.X)
		b.WriteByte('[')
		writeType(b, t.Index)
		b.WriteByte(']')
	case *ast.IndexListExpr:
		writeType(b, t.X)
		b.WriteByte('[')
		for i, x := range t.Indices {
			if i > 0 {
				b.WriteString(", ")
			}
			writeType(b, x)
		}
		b.WriteByte(']')
	case *ast.UnaryExpr: // ~T in a constraint, or a negative array length
		b.WriteString(t.Op.String())
		writeType(b, t.X)
	case *ast.BinaryExpr: // a union in a constraint, or an array length computed from constants
		writeType(b, t.X)
		b.WriteString(" " + t.Op.String() + " ")
		writeType(b, t.Y)
	case *ast.BasicLit:
		b.WriteString(t.Value)
	case *ast.CallExpr: // an array length such as len(x)
		writeType(b, t.Fun)
		b.WriteByte('(')
		for i, a := range t.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeType(b, a)
		}
		b.WriteByte(')')
	default:
		b.WriteString("?")
	}
}

// writeSignature writes "(params) results" of a function type.
func writeSignature(b *strings.Builder, f *ast.FuncType) {
	b.WriteByte('(')
	writeFieldTypes(b, f.Params)
	b.WriteByte(')')
	if f.Results == nil || len(f.Results.List) == 0 {
		return
	}
	b.WriteByte(' ')
	if countFields(f.Results) == 1 {
		writeType(b, f.Results.List[0].Type)
		return
	}
	b.WriteByte('(')
	writeFieldTypes(b, f.Results)
	b.WriteByte(')')
}

// writeFieldTypes writes each parameter's type once per name, so that "a, b int" is "int, int".
func writeFieldTypes(b *strings.Builder, fl *ast.FieldList) {
	if fl == nil {
		return
	}
	first := true
	for _, f := range fl.List {
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for range n {
			if !first {
				b.WriteString(", ")
			}
			first = false
			writeType(b, f.Type)
		}
	}
}

func countFields(fl *ast.FieldList) int {
	n := 0
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			n++
		} else {
			n += len(f.Names)
		}
	}
	return n
}

// writeTypeParams writes "[T any, K comparable]" as declared, names kept: the names are how the
// rest of the line refers to the parameters.
func writeTypeParams(b *strings.Builder, fl *ast.FieldList) {
	if fl == nil || len(fl.List) == 0 {
		return
	}
	b.WriteByte('[')
	for i, f := range fl.List {
		if i > 0 {
			b.WriteString(", ")
		}
		for j, n := range f.Names {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n.Name)
		}
		b.WriteByte(' ')
		writeType(b, f.Type)
	}
	b.WriteByte(']')
}

// writeInterfaceInline writes an interface type that appears inside another type, with its exported
// methods and embedded elements; an unexported method makes it unimplementable outside, so it shows
// as "unexported methods".
func writeInterfaceInline(b *strings.Builder, t *ast.InterfaceType) {
	var parts []string
	hidden := false
	for _, f := range t.Methods.List {
		if len(f.Names) == 0 {
			parts = append(parts, typeString(f.Type))
			continue
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				hidden = true
				continue
			}
			var s strings.Builder
			s.WriteString(n.Name)
			if ft, ok := f.Type.(*ast.FuncType); ok {
				writeSignature(&s, ft)
			}
			parts = append(parts, s.String())
		}
	}
	if hidden {
		parts = append(parts, "unexported methods")
	}
	if len(parts) == 0 {
		b.WriteString("interface{}")
		return
	}
	b.WriteString("interface { " + strings.Join(parts, "; ") + " }")
}

// writeStructInline writes a struct type that appears inside another type, exported fields only.
func writeStructInline(b *strings.Builder, t *ast.StructType) {
	var parts []string
	for _, f := range t.Fields.List {
		if len(f.Names) == 0 {
			if token.IsExported(embeddedName(f.Type)) {
				parts = append(parts, typeString(f.Type))
			}
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				parts = append(parts, n.Name+" "+typeString(f.Type))
			}
		}
	}
	if len(parts) == 0 {
		b.WriteString("struct{}")
		return
	}
	b.WriteString("struct { " + strings.Join(parts, "; ") + " }")
}

// embeddedName is the name an embedded field is known by: T for T, *T, pkg.T and T[X].
func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	}
	return ""
}
