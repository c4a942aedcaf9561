package secaudit

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// The fiber-copy check: fasthttp reuses a request's memory once its handler
// returns, and fiber's strings and byte slices (Params, Query, FormValue,
// Get, Cookies, Body, the request's headers) alias that memory. One kept
// past the handler changes under us: a metric label that later reads
// "teway05c" broke /metrics with a 500 until restart. The check
// follows such values from every function that takes a *fiber.Ctx (or a
// fasthttp request, its args or headers) into the functions and methods of
// its package and the module's functions it calls by name (pkg.F) that it
// passes them to, and flags one that
// reaches a place that outlives the request: a metric label (WithLabelValues,
// With), a map or field that is not the function's own local, a goroutine,
// a channel. A copy (strings.Clone, utils.CopyString, string(bytes),
// []byte(string), append([]byte(nil), b...), fmt, strconv) ends the trail.
// It reads syntax only, so it errs on the side of flagging; a line that is
// safe for a reason it cannot see says so with `fibercopy:ok <why>`. Not
// followed: values coming back as results, calls through interfaces or to
// methods of other packages; TestParsedParamsOwnTheirMemory (command) holds
// the create parameters to being copies, and the end-to-end tests
// (TestMetricsAfterMixedTraffic, TestCreateIntegrityUnderLoad) watch the
// rest from outside.

// parseDir parses the non-test Go files of one directory.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestFiberValuesCopiedBeforeKept runs the check over every package of the
// module.
func TestFiberValuesCopiedBeforeKept(t *testing.T) {
	root := testenv.ModuleRoot(t)
	fset := token.NewFileSet()
	var files []*ast.File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		files = append(files, parseDir(t, fset, path)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range checkFiber(fset, files, root, modulePath(t, root)) {
		rel, _ := filepath.Rel(root, f.pos.Filename)
		t.Errorf("%s:%d: a value from the request (fiber.Ctx) is %s without a copy; copy it (strings.Clone) at the handler", rel, f.pos.Line, f.what)
	}
}

// modulePath is the module line of go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// wantLines are the lines of the planted files marked `// want`.
func wantLines(fset *token.FileSet, files []*ast.File) map[string]bool {
	want := map[string]bool{}
	for _, f := range files {
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.TrimSpace(strings.TrimPrefix(c.Text, "//")) == "want" {
					p := fset.Position(c.Pos())
					want[fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)] = true
				}
			}
		}
	}
	return want
}

// TestFiberCheckFindsPlanted holds the check to testdata/fibercopy: every
// planted violation (a label, a map, a field, a goroutine, a channel, each
// direct and through a helper) is found, and none of the copied, local or
// waived forms beside them is.
func TestFiberCheckFindsPlanted(t *testing.T) {
	fset := token.NewFileSet()
	root := filepath.Join("testdata", "fibercopy")
	files := append(parseDir(t, fset, root), parseDir(t, fset, filepath.Join(root, "labels"))...)
	want := wantLines(fset, files)
	if len(want) < 10 {
		t.Fatalf("only %d planted violations: the testdata lost its marks", len(want))
	}
	got := map[string]bool{}
	for _, f := range checkFiber(fset, files, root, "example.test/planted") {
		k := fmt.Sprintf("%s:%d", filepath.Base(f.pos.Filename), f.pos.Line)
		got[k] = true
		if !want[k] {
			t.Errorf("%s: flagged (%s) but planted as safe", k, f.what)
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s: planted violation not found", k)
		}
	}
}
