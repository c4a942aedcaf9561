package houseplan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// File is one Go source file of the tree as the rules see it.
type File struct {
	Rel     string // slash-separated, from the module root
	Test    bool
	Lines   int
	Imports []string
	AST     *ast.File
}

// Files parses every Go file under root, skipping dependencies, version
// control and test data (whose files are fixtures, not the house).
func Files(root string) ([]File, error) {
	var out []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".deps", ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		f, err := parseFile(p, filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		out = append(out, f)
		return nil
	})
	return out, err
}

func parseFile(path, rel string) (File, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return File{}, err
	}
	f := File{Rel: rel, Test: strings.HasSuffix(rel, "_test.go"), AST: af, Lines: fset.File(af.Pos()).LineCount()}
	for _, im := range af.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil {
			f.Imports = append(f.Imports, p)
		}
	}
	return f, nil
}

// Methods counts the methods declared on each named type, pointer and
// value receivers together, keyed "dir.Type".
func Methods(files []File) map[string]int {
	n := map[string]int{}
	for _, f := range files {
		if f.Test {
			continue
		}
		for _, d := range f.AST.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			if name := recvName(fd.Recv.List[0].Type); name != "" {
				n[filepath.ToSlash(filepath.Dir(f.Rel))+"."+name]++
			}
		}
	}
	return n
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}
