package secaudit

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"
)

func (s *fnState) assign(a *ast.AssignStmt) {
	for i, lhs := range a.Lhs {
		var t taint
		switch {
		case len(a.Rhs) == len(a.Lhs):
			t = s.taintOf(a.Rhs[i])
		case len(a.Rhs) == 1:
			t = s.taintOf(a.Rhs[0])
		}
		switch l := lhs.(type) {
		case *ast.Ident:
			if a.Tok == token.DEFINE {
				s.locals[l.Name] = true
			}
			s.vars[l.Name] = t
		case *ast.IndexExpr:
			if (t != clean || s.taintOf(l.Index) != clean) && !s.ownedLocal(l.X) {
				s.flag(a, "stored in a map or slice that outlives the request")
			}
		case *ast.SelectorExpr:
			if t != clean && !s.ownedLocal(l.X) {
				s.flag(a, "stored in a field that outlives the request")
			}
		case *ast.StarExpr:
			if t != clean && !s.ownedLocal(l.X) {
				s.flag(a, "stored through a pointer that outlives the request")
			}
		}
	}
}

// ownedLocal says whether e is rooted at a variable the function declared
// itself or was given as a parameter: not a receiver (a handler's state
// lives as long as the server) or a package variable.
func (s *fnState) ownedLocal(e ast.Expr) bool {
	for {
		switch v := e.(type) {
		case *ast.Ident:
			return s.locals[v.Name]
		case *ast.SelectorExpr:
			e = v.X
		case *ast.IndexExpr:
			e = v.X
		case *ast.StarExpr:
			e = v.X
		case *ast.ParenExpr:
			e = v.X
		default:
			return false
		}
	}
}

func (s *fnState) call(c *ast.CallExpr) {
	if s.rootedAtCtx(c.Fun) {
		// VisitAll(func(k, v []byte) {...}): the callback's arguments alias.
		for _, a := range c.Args {
			if lit, ok := a.(*ast.FuncLit); ok {
				for _, field := range lit.Type.Params.List {
					for _, n := range field.Names {
						s.vars[n.Name] = aliasBytes
					}
				}
			}
		}
	}
	name := calleeName(c.Fun)
	switch name {
	case "WithLabelValues", "With", "GetMetricWithLabelValues", "GetMetricWith", "CurryWith", "MustCurryWith":
		for _, a := range c.Args {
			if s.taintOf(a) != clean {
				s.flag(c, "used as a metric label (or kept by "+name+")")
				return
			}
		}
	case "Store", "LoadOrStore", "Swap", "CompareAndSwap":
		for _, a := range c.Args {
			if s.taintOf(a) != clean {
				s.flag(c, "stored by "+name)
				return
			}
		}
	}
	// Into a function the call may reach: its parameter carries the taint.
	for _, callee := range s.fc.callees(s.fn, c.Fun, name) {
		for i, a := range c.Args {
			t := s.taintOf(a)
			if t == clean {
				continue
			}
			if s.fc.params[callee] == nil {
				s.fc.params[callee] = map[int]taint{}
			}
			if s.fc.params[callee][i] != t {
				s.fc.params[callee][i] = t
				s.fc.queue = append(s.fc.queue, callee)
			}
		}
	}
}

// callees are the module's functions a call from fn may run: F() those
// named F in fn's package, pkg.F() those in pkg's directory when pkg is
// one of the module's, x.M() the methods named M of fn's package. (Without
// types, x.M() into another package could be any of the module's many Get
// or Run methods; interfaces between packages are not followed.)
func (fc *fiberCheck) callees(fn *ast.FuncDecl, fun ast.Expr, name string) []*ast.FuncDecl {
	file := fc.fileOf[fn]
	var dir string
	method := false
	switch f := fun.(type) {
	case *ast.Ident:
		dir = fc.dirOf[fn]
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok && fc.imports[file][id.Name] {
			p := fc.paths[file][id.Name]
			if fc.module == "" || !strings.HasPrefix(p, fc.module+"/") {
				return nil
			}
			dir = filepath.Join(fc.root(), strings.TrimPrefix(p, fc.module+"/"))
		} else {
			method = true
		}
	default:
		return nil
	}
	var out []*ast.FuncDecl
	for _, d := range fc.funcs[name] {
		switch {
		case method && d.Recv != nil && fc.dirOf[d] == fc.dirOf[fn]:
			out = append(out, d)
		case !method && d.Recv == nil && fc.dirOf[d] == dir:
			out = append(out, d)
		}
	}
	return out
}

func (s *fnState) goStmt(g *ast.GoStmt) {
	for _, a := range g.Call.Args {
		if s.taintOf(a) != clean {
			s.flag(g, "passed to a goroutine")
			return
		}
	}
	lit, ok := g.Call.Fun.(*ast.FuncLit)
	if !ok {
		return
	}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && (s.vars[id.Name] != clean || s.ctx[id.Name]) {
			s.flag(g, "used by a goroutine ("+id.Name+")")
			return false
		}
		return true
	})
}

func (s *fnState) flag(n ast.Node, what string) {
	pos := s.fc.fset.Position(n.Pos())
	if s.fc.waived[pos.Filename][pos.Line] {
		return
	}
	key := pos.String() + what
	s.fc.found[key] = fiberFinding{pos: pos, what: what}
}
