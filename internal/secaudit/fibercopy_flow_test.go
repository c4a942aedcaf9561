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
