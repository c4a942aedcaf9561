package secaudit

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

const fiberWaiver = "fibercopy:ok"

// ctxTypes are the parameter types whose values alias request memory.
var ctxTypes = map[string]bool{
	"fiber.Ctx": true, "fasthttp.RequestCtx": true, "fasthttp.Args": true,
	"fasthttp.Request": true, "fasthttp.RequestHeader": true, "fasthttp.URI": true,
}

// ctxSafe are the methods of a context whose results own their memory or
// are the application's, not the request's.
var ctxSafe = map[string]bool{
	"UserContext": true, "App": true, "Route": true, "Locals": true, "Next": true,
	"SetUserContext": true, "Status": true, "SendStatus": true, "SendString": true, "Send": true,
	"JSON": true, "Redirect": true, "Set": true, "Type": true, "Render": true, "StatusCode": true,
	"Len": true, "IsProxyTrusted": true,
}

// ctxStrings are the methods that hand out strings (the rest hand out
// bytes or objects holding them): string(x) of one is no copy.
var ctxStrings = map[string]bool{
	"Params": true, "Query": true, "FormValue": true, "Get": true, "Cookies": true, "Path": true,
	"OriginalURL": true, "BaseURL": true, "Hostname": true, "IP": true, "Protocol": true,
	"Method": true, "GetRespHeader": true, "String": true, "IPs": true, "Subdomains": true,
}

// copyFuncs return memory of their own whatever they are given.
var copyFuncs = map[string]bool{
	"strings.Clone": true, "utils.CopyString": true, "utils.CopyBytes": true, "bytes.Clone": true,
	"strings.Join": true, "strings.Repeat": true, "strings.Map": true, "strings.Builder": true,
	"slices.Clone": true, "maps.Clone": true, "url.QueryEscape": true, "url.PathEscape": true,
}

// copyPkgs are packages whose functions never return their argument's
// memory (formatting, parsing to numbers, encodings, hashing, addresses).
var copyPkgs = map[string]bool{
	"fmt": true, "strconv": true, "hex": true, "base64": true, "netip": true, "time": true,
	"sha256": true, "md5": true, "hmac": true, "json": true, "errors": true, "utf8": true,
	"subtle": true, "len": true, "cap": true,
}

// boolFuncs answer a bool or an int about their arguments.
var boolFuncs = map[string]bool{
	"HasPrefix": true, "HasSuffix": true, "Contains": true, "ContainsAny": true, "ContainsRune": true,
	"Index": true, "IndexByte": true, "LastIndex": true, "Count": true, "Compare": true, "Equal": true,
	"EqualFold": true, "len": true, "cap": true,
}

type taint int

const (
	clean taint = iota
	aliasString
	aliasBytes
)

// fiberFinding is one request value reaching a place that outlives it.
type fiberFinding struct {
	pos  token.Position
	what string
}

// pkgFuncs is one package's functions by name (methods by their own
// name): a call passes taint to every function of that name.
type pkgFuncs map[string][]*ast.FuncDecl

type fiberCheck struct {
	fset    *token.FileSet
	funcs   pkgFuncs
	waived  map[string]map[int]bool // file → line
	params  map[*ast.FuncDecl]map[int]taint
	queue   []*ast.FuncDecl
	found   map[string]fiberFinding
	imports map[*ast.File]map[string]bool
	paths   map[*ast.File]map[string]string // import name → import path
	fileOf  map[*ast.FuncDecl]*ast.File
	dirOf   map[*ast.FuncDecl]string
	module  string // the module path, to find a package's directory from an import
	rootDir string
}

func (fc *fiberCheck) root() string { return fc.rootDir }

// checkFiber runs the check over the files of a module (or of one
// package): values are followed into the functions and methods of their
// own package and into the module's functions they call by name (pkg.F).
func checkFiber(fset *token.FileSet, files []*ast.File, root, module string) []fiberFinding {
	fc := &fiberCheck{fset: fset, funcs: pkgFuncs{}, waived: map[string]map[int]bool{},
		params: map[*ast.FuncDecl]map[int]taint{}, found: map[string]fiberFinding{},
		imports: map[*ast.File]map[string]bool{}, fileOf: map[*ast.FuncDecl]*ast.File{},
		paths: map[*ast.File]map[string]string{}, dirOf: map[*ast.FuncDecl]string{}, module: module, rootDir: root}
	for _, f := range files {
		name := fset.Position(f.Pos()).Filename
		fc.waived[name] = map[int]bool{}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.Contains(c.Text, fiberWaiver) {
					fc.waived[name][fset.Position(c.Pos()).Line] = true
				}
			}
		}
		fc.imports[f], fc.paths[f] = map[string]bool{}, map[string]string{}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			n := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				n = im.Name.Name
			}
			fc.imports[f][n], fc.paths[f][n] = true, p
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				fc.funcs[fn.Name.Name] = append(fc.funcs[fn.Name.Name], fn)
				fc.fileOf[fn] = f
				fc.dirOf[fn] = filepath.Dir(name)
				fc.queue = append(fc.queue, fn)
			}
		}
	}
	for len(fc.queue) > 0 {
		fn := fc.queue[0]
		fc.queue = fc.queue[1:]
		fc.analyse(fn)
	}
	out := make([]fiberFinding, 0, len(fc.found))
	for _, f := range fc.found {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pos.Filename != out[j].pos.Filename {
			return out[i].pos.Filename < out[j].pos.Filename
		}
		return out[i].pos.Line < out[j].pos.Line
	})
	return out
}

// fnState is one pass over one function: which names hold request memory,
// which are the request contexts, which are the function's own locals.
type fnState struct {
	fc     *fiberCheck
	fn     *ast.FuncDecl
	vars   map[string]taint
	ctx    map[string]bool
	locals map[string]bool
}

func isCtxType(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && ctxTypes[pkg.Name+"."+sel.Sel.Name]
}

func (fc *fiberCheck) analyse(fn *ast.FuncDecl) {
	s := &fnState{fc: fc, fn: fn, vars: map[string]taint{}, ctx: map[string]bool{}, locals: map[string]bool{}}
	i := 0
	for _, field := range fn.Type.Params.List {
		names := field.Names
		if len(names) == 0 {
			names = []*ast.Ident{{Name: "_"}}
		}
		for _, n := range names {
			s.locals[n.Name] = true // the caller's per-request value, as a local is
			if isCtxType(field.Type) {
				s.ctx[n.Name] = true
			} else if t := fc.params[fn][i]; t != clean {
				s.vars[n.Name] = t
			}
			i++
		}
	}
	ast.Inspect(fn.Body, s.visit)
}

func (s *fnState) visit(n ast.Node) bool {
	switch v := n.(type) {
	case *ast.FuncLit:
		for _, field := range v.Type.Params.List {
			for _, name := range field.Names {
				s.locals[name.Name] = true
				if s.vars[name.Name] != aliasBytes {
					s.vars[name.Name] = clean
				}
				if isCtxType(field.Type) {
					s.ctx[name.Name] = true
				}
			}
		}
	case *ast.AssignStmt:
		s.assign(v)
	case *ast.IncDecStmt:
		if l, ok := v.X.(*ast.IndexExpr); ok && s.taintOf(l.Index) != clean && !s.ownedLocal(l.X) {
			s.flag(v, "used as a key of a map that outlives the request")
		}
	case *ast.ValueSpec:
		for i, name := range v.Names {
			s.locals[name.Name] = true
			if i < len(v.Values) {
				s.vars[name.Name] = s.taintOf(v.Values[i])
			} else if len(v.Values) == 1 {
				s.vars[name.Name] = s.taintOf(v.Values[0])
			}
		}
	case *ast.RangeStmt:
		t := s.taintOf(v.X)
		for _, e := range []ast.Expr{v.Key, v.Value} {
			if id, ok := e.(*ast.Ident); ok {
				s.locals[id.Name] = true
				if e == v.Value || t == aliasString {
					s.vars[id.Name] = t
				}
			}
		}
	case *ast.CallExpr:
		s.call(v)
	case *ast.GoStmt:
		s.goStmt(v)
	case *ast.SendStmt:
		if s.taintOf(v.Value) != clean {
			s.flag(v, "sent on a channel")
		}
	}
	return true
}

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
