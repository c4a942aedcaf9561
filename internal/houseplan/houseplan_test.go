package houseplan

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

const (
	module     = "github.com/paygate/gateway/"
	fiber      = "github.com/gofiber/fiber"
	maxLines   = 400
	maxMethods = 25
)

// doors may speak HTTP: the web tree (the doors and web/server) and the
// commands, the benchmark's own servers included.
func door(rel string) bool {
	return strings.HasPrefix(rel, "web/") || strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "bench/cmd/")
}

func tree(t *testing.T) []File {
	t.Helper()
	files, err := Files(testenv.ModuleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 500 {
		t.Fatalf("read %d Go files: not the module root?", len(files))
	}
	return files
}

func TestRules(t *testing.T) {
	files := tree(t)
	tests := []struct {
		name  string
		check func([]File) []string
	}{
		{"fiber only in the doors", fiberOutsideDoors},
		{"use cases import no door", useCasesImportingDoors},
		{"no file over 400 lines", longFiles},
		{"no type over 25 methods", bigTypes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.check(files) {
				t.Error(v)
			}
		})
	}
}

func fiberOutsideDoors(files []File) []string {
	var out []string
	for _, f := range files {
		for _, im := range f.Imports {
			if strings.HasPrefix(im, fiber) && !door(f.Rel) {
				out = append(out, f.Rel+" imports "+im+": HTTP belongs in a door under web/")
			}
		}
	}
	return out
}

// useCasesImportingDoors: a use case calls down, never up into a door. A
// test of a use case may drive it through its door from an external test
// package, which is the door's client, not the use case.
func useCasesImportingDoors(files []File) []string {
	var out []string
	for _, f := range files {
		if door(f.Rel) || f.Test {
			continue
		}
		for _, im := range f.Imports {
			if strings.HasPrefix(im, module+"web/") || strings.HasPrefix(im, module+"cmd/") {
				out = append(out, f.Rel+" imports the door "+strings.TrimPrefix(im, module))
			}
		}
	}
	return out
}

func longFiles(files []File) []string {
	var out []string
	for _, f := range files {
		if f.Lines > maxLines {
			out = append(out, fmt.Sprintf("%s has %d lines (at most %d: split it along a seam)", f.Rel, f.Lines, maxLines))
		}
	}
	return out
}

func bigTypes(files []File) []string {
	var out []string
	for typ, n := range Methods(files) {
		if n > maxMethods {
			out = append(out, fmt.Sprintf("%s has %d methods (at most %d: split it by what its methods change)", typ, n, maxMethods))
		}
	}
	sort.Strings(out)
	return out
}

// TestRulesCatchABreach feeds each rule a tree that breaks it, so a rule
// that stopped looking would fail here rather than pass everything.
func TestRulesCatchABreach(t *testing.T) {
	long := File{Rel: "command/big.go", Lines: maxLines + 1}
	tests := []struct {
		name  string
		check func([]File) []string
		files []File
	}{
		{"fiber in a use case", fiberOutsideDoors, []File{{Rel: "command/x.go", Imports: []string{fiber + "/v2"}}}},
		{"fiber in a use case's test", fiberOutsideDoors, []File{{Rel: "query/x_test.go", Test: true, Imports: []string{fiber + "/v2"}}}},
		{"a use case importing a door", useCasesImportingDoors, []File{{Rel: "operator/x.go", Imports: []string{module + "web/admin"}}}},
		{"a long file", longFiles, []File{long}},
		{"a big type", bigTypes, []File{typeWith(t, maxMethods+1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.check(tt.files); len(got) != 1 {
				t.Fatalf("the rule found %q in a tree that breaks it once", got)
			}
		})
	}
	if got := bigTypes([]File{typeWith(t, maxMethods)}); len(got) != 0 {
		t.Fatalf("a type of exactly %d methods refused: %q", maxMethods, got)
	}
}

// typeWith is a parsed file declaring one type with n methods.
func typeWith(t *testing.T, n int) File {
	t.Helper()
	var b strings.Builder
	b.WriteString("package x\n\ntype T struct{}\n")
	for i := range n {
		fmt.Fprintf(&b, "func (T) M%d() {}\n", i)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.go")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := parseFile(path, "x/x.go")
	if err != nil {
		t.Fatal(err)
	}
	return f
}
