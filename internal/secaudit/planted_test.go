package secaudit

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretCheckFindsPlanted holds the constant-time check to
// testdata/compare: each rule (a secret's name, any == inside a function
// checking a secret, variable-time library comparisons, and inside a MAC
// or signature verifier bytes.Equal and == on MAC-like values) finds its
// planted violations, and none of the presence checks, literals, waived
// lines and constant-time comparisons beside them.
func TestSecretCheckFindsPlanted(t *testing.T) {
	fset := token.NewFileSet()
	path := filepath.Join("testdata", "compare", "planted.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	want := wantLines(fset, []*ast.File{f})
	if len(want) < 12 {
		t.Fatalf("only %d planted violations: the testdata lost its marks", len(want))
	}
	got := map[string]bool{}
	for _, fd := range secretCompares(fset, f, src) {
		k := fmt.Sprintf("%s:%d", filepath.Base(fd.pos.Filename), fd.pos.Line)
		got[k] = true
		if !want[k] {
			t.Errorf("%s: %s flagged but planted as harmless", k, fd.expr)
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s: planted violation not found", k)
		}
	}
}

// TestLoopbackCheckFindsPlanted gives the script-configuration check
// configurations that break each of its rules, and the ones our scripts
// write.
func TestLoopbackCheckFindsPlanted(t *testing.T) {
	const redisOK = "bind 127.0.0.1 -::1\nprotected-mode yes\n"
	const chOK = "<listen_host>127.0.0.1</listen_host><tcp_port>9000</tcp_port><ip>::1</ip><ip>127.0.0.1</ip>"
	for _, tc := range []struct {
		name, redis, ch, want string
	}{
		{"ours", redisOK, chOK, ""},
		{"redis without bind", "protected-mode yes\n", chOK, "no bind line"},
		{"redis on every interface", "bind 0.0.0.0\nprotected-mode yes\n", chOK, `binds "0.0.0.0"`},
		{"redis on loopback and more", "bind 127.0.0.1 10.0.0.1\nprotected-mode yes\n", chOK, "binds"},
		{"redis unprotected", "bind 127.0.0.1\nprotected-mode no\n", chOK, "protected-mode"},
		{"clickhouse without listen_host", redisOK, "<tcp_port>9000</tcp_port>", "no listen_host"},
		{"clickhouse on every interface", redisOK, "<listen_host>::</listen_host><tcp_port>9000</tcp_port>", `listens on "::"`},
		{"clickhouse http port", redisOK, chOK + "<http_port>8123</http_port>", "opens http_port"},
		{"clickhouse user from anywhere", redisOK, chOK + "<ip>::/0</ip>", `from "::/0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(loopbackProblems(tc.redis, tc.ch), "\n")
			switch {
			case tc.want == "" && got != "":
				t.Fatalf("problems in a loopback-only configuration: %s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Fatalf("want a problem with %q, got %q", tc.want, got)
			}
		})
	}
}
