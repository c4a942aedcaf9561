package secaudit

import (
	"go/ast"
	"go/token"
)

func calleeName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr: // a generic function
		return calleeName(f.X)
	}
	return ""
}

// pkgQualifier is the package name of pkg.F (empty for other forms).
func pkgQualifier(fun ast.Expr) string {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return id.Name
}

// rootedAtCtx says whether a call chain starts at a request context
// (c.Params, c.Request().Header.Peek).
func (s *fnState) rootedAtCtx(e ast.Expr) bool {
	for {
		switch v := e.(type) {
		case *ast.Ident:
			return s.ctx[v.Name]
		case *ast.SelectorExpr:
			e = v.X
		case *ast.CallExpr:
			e = v.Fun
		case *ast.ParenExpr:
			e = v.X
		default:
			return false
		}
	}
}

// taintOf is whether e holds request memory, and in which form.
func (s *fnState) taintOf(e ast.Expr) taint {
	switch v := e.(type) {
	case *ast.Ident:
		if s.ctx[v.Name] {
			return aliasBytes
		}
		return s.vars[v.Name]
	case *ast.ParenExpr:
		return s.taintOf(v.X)
	case *ast.StarExpr:
		return s.taintOf(v.X)
	case *ast.UnaryExpr:
		if ix, ok := v.X.(*ast.IndexExpr); ok && v.Op == token.AND {
			return s.taintOf(ix.X) // &b[i] points into b
		}
		if v.Op == token.AND {
			return s.taintOf(v.X)
		}
		return clean
	case *ast.SliceExpr:
		return s.taintOf(v.X)
	case *ast.IndexExpr:
		if t := s.taintOf(v.X); t == aliasString {
			return t // an element of []string or map[string]string, not a byte
		}
		return clean
	case *ast.SelectorExpr:
		return s.taintOf(v.X)
	case *ast.CompositeLit:
		for _, el := range v.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if s.taintOf(el) != clean {
				return aliasString
			}
		}
		return clean
	case *ast.CallExpr:
		return s.callTaint(v)
	case *ast.BinaryExpr:
		// a + "-" + b is a new string; a + "" is a itself.
		if v.Op == token.ADD {
			if l, ok := v.Y.(*ast.BasicLit); ok && l.Value == `""` {
				return s.taintOf(v.X)
			}
			if l, ok := v.X.(*ast.BasicLit); ok && l.Value == `""` {
				return s.taintOf(v.Y)
			}
		}
	}
	return clean
}

func (s *fnState) callTaint(c *ast.CallExpr) taint {
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok && s.rootedAtCtx(sel.X) || isCtxMethodOnIdent(s, c.Fun) {
		name := selName(c.Fun)
		switch {
		case ctxSafe[name]:
			return clean
		case ctxStrings[name]:
			return aliasString
		}
		return aliasBytes
	}
	name := calleeName(c.Fun)
	qual := pkgQualifier(c.Fun)
	if qual == "unsafe" {
		// unsafe.String(&b[0], n) and unsafe.Slice alias, never copy.
		for _, a := range c.Args {
			if s.taintOf(a) != clean {
				return aliasString
			}
		}
		return clean
	}
	switch {
	case copyFuncs[qual+"."+name], copyPkgs[qual], copyPkgs[name], boolFuncs[name]:
		return clean
	case name == "string" && len(c.Args) == 1:
		if s.taintOf(c.Args[0]) == aliasString {
			return aliasString
		}
		return clean
	case name == "append" && len(c.Args) > 0:
		if s.taintOf(c.Args[0]) != clean {
			return s.taintOf(c.Args[0])
		}
		for _, a := range c.Args[1:] {
			if t := s.taintOf(a); t != clean && c.Ellipsis == token.NoPos {
				return t
			}
		}
		return clean // append([]byte(nil), b...) copies
	}
	if at, ok := c.Fun.(*ast.ArrayType); ok {
		// []byte(s) copies; []T(x) of a slice type does not.
		if id, ok := at.Elt.(*ast.Ident); ok && id.Name == "byte" && len(c.Args) == 1 && s.taintOf(c.Args[0]) == aliasString {
			return clean
		}
		if len(c.Args) == 1 {
			return s.taintOf(c.Args[0])
		}
	}
	// A method of a request value (b.String(), family.Trim()) or a call of
	// one argument (a conversion to a named type, strings.TrimSpace, a
	// wrapper) is taken to hand back what it was given.
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok && !s.fc.imports[s.fc.fileOf[s.fn]][qual] {
		if t := s.taintOf(sel.X); t != clean {
			return t
		}
	}
	if len(c.Args) == 1 && !s.isCtx(c.Args[0]) {
		return s.taintOf(c.Args[0])
	}
	return clean
}

// isCtx is a request context itself: what a function given one returns
// (an error, an order, a view) is not taken to alias it.
func (s *fnState) isCtx(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && s.ctx[id.Name]
}

func isCtxMethodOnIdent(s *fnState, fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && s.ctx[id.Name]
}

func selName(fun ast.Expr) string { return fun.(*ast.SelectorExpr).Sel.Name }
