package secaudit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// secretName matches the last name of an operand that holds a secret or a
// value derived from one: a comparison of such values with == leaks, byte
// by byte, how much of a guess was right.
var secretName = regexp.MustCompile(`(?i)(^sig$|sign$|^sign|signature|secret|password|passwd|apikey|api_key|querykey|query_key|token$|^mac$|hmac|digest)`)

// notSecret are names the pattern catches that hold no secret: the
// signature's type name, a sign's algorithm and the like.
var notSecret = regexp.MustCompile(`(?i)^(sign_?type|signtype|signalg|signing|design|assign|signal.*)$`)

// finding is one non-constant-time comparison of a secret.
type finding struct {
	pos  token.Position
	expr string
}

// secretCompares lists every == or != in src whose operands name a secret
// and are not compared with nil, the empty string or a number (a presence
// or length check leaks nothing).
func secretCompares(fset *token.FileSet, file *ast.File, src []byte) []finding {
	waived := waivedLines(fset, file)
	var out []finding
	add := func(n ast.Node) {
		pos := fset.Position(n.Pos())
		if !waived[pos.Line] {
			out = append(out, finding{pos: pos, expr: string(src[pos.Offset:fset.Position(n.End()).Offset])})
		}
	}
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		inspectFunc(fn, add)
	}
	return out
}

// verifier names a function whose job is checking a secret (VerifySign,
// checkSignature, authenticate): inside one, `want == got` is as bad as
// `sign == expected`, whatever the variables are called.
var verifier = regexp.MustCompile(`(?i)(sign|secret|password|mac$|matches)`)

// macVerifier names a function that checks a MAC or a signature
// (Verify, verifyNotification, checkHMAC): inside one, a variable-time
// library comparison of any two computed values (bytes.Equal(want, got))
// and an == on a MAC-like value (mac, sum, digest, expected, computed, a
// hex or base64 encoding, string(x)) are flagged, whatever the names.
var macVerifier = regexp.MustCompile(`(?i)(verif|sign|mac$|^mac|hmac|digest|secret|password|matches)`)

// macLike is an operand that holds a computed MAC or its encoding.
func macLike(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.Ident:
		return macName.MatchString(v.Name)
	case *ast.SelectorExpr:
		return macName.MatchString(v.Sel.Name)
	case *ast.ParenExpr:
		return macLike(v.X)
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "string" && len(v.Args) == 1 {
			return macLike(v.Args[0]) || isSum(v.Args[0])
		}
		if sel, ok := v.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "EncodeToString" || sel.Sel.Name == "Sum") {
			return true
		}
	}
	return false
}

var macName = regexp.MustCompile(`(?i)(^mac|mac$|sum$|digest|expected|computed)`)

func isSum(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Sum"
}

func inspectFunc(fn *ast.FuncDecl, add func(ast.Node)) {
	strict := verifier.MatchString(fn.Name.Name)
	checksMAC := macVerifier.MatchString(fn.Name.Name)
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch v := n.(type) {
		case *ast.BinaryExpr:
			if (v.Op == token.EQL || v.Op == token.NEQ) && !harmless(v.X) && !harmless(v.Y) &&
				(namesSecret(v.X) || namesSecret(v.Y) || (strict && !literal(v.X) && !literal(v.Y)) ||
					(checksMAC && (macLike(v.X) || macLike(v.Y)))) {
				add(v)
			}
		case *ast.CallExpr:
			// Inside a verifier, bytes.Equal(mac, got) leaks as much as
			// sign == expected, whatever the two are called.
			if variableTimeEqual(v.Fun) && len(v.Args) == 2 && (namesSecret(v.Args[0]) || namesSecret(v.Args[1]) ||
				(checksMAC && !literal(v.Args[0]) && !literal(v.Args[1]) && !harmless(v.Args[0]) && !harmless(v.Args[1]))) {
				add(v)
			}
		}
		return true
	})
}

// literal is a string constant written out: comparing with one reads a
// field's name or a fixed value, never a secret.
func literal(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.STRING
}

// variableTimeEqual are the library comparisons that stop at the first
// difference.
func variableTimeEqual(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && ((pkg.Name == "bytes" && (sel.Sel.Name == "Equal" || sel.Sel.Name == "Compare" || sel.Sel.Name == "EqualFold")) ||
		(pkg.Name == "strings" && (sel.Sel.Name == "EqualFold" || sel.Sel.Name == "Compare")) ||
		(pkg.Name == "reflect" && sel.Sel.Name == "DeepEqual") || (pkg.Name == "slices" && sel.Sel.Name == "Equal"))
}

// waiver marks a line whose comparison names a secret but compares none
// (a field's name, a digest of a request); the comment must say why.
const waiver = "secaudit:not-secret"

func waivedLines(fset *token.FileSet, file *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, g := range file.Comments {
		for _, c := range g.List {
			if strings.Contains(c.Text, waiver) {
				lines[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	return lines
}

// harmless is an operand that makes the comparison a presence, length or
// kind check: nil, "", a number, a bool, len(...), or a constant of the
// form ErrX/KindX.
func harmless(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.Ident:
		return v.Name == "nil" || v.Name == "true" || v.Name == "false"
	case *ast.BasicLit:
		if v.Kind == token.STRING {
			s, _ := strconv.Unquote(v.Value)
			return s == ""
		}
		return true
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") {
			return true
		}
	case *ast.ParenExpr:
		return harmless(v.X)
	}
	return false
}

// namesSecret reports whether an operand's own name, or the string key it
// is read with (p["sign"], form.Get("sign")), names a secret.
func namesSecret(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.Ident:
		return secretWord(v.Name)
	case *ast.SelectorExpr:
		return secretWord(v.Sel.Name)
	case *ast.ParenExpr:
		return namesSecret(v.X)
	case *ast.StarExpr:
		return namesSecret(v.X)
	case *ast.IndexExpr:
		return namesSecret(v.X) || literalSecret(v.Index)
	case *ast.CallExpr:
		// string(b), strings.ToLower(s), hex.EncodeToString(m.Sum(nil)),
		// form.Get("sign"): the name inside decides.
		for _, a := range v.Args {
			if namesSecret(a) || literalSecret(a) {
				return true
			}
		}
		return namesSecret(v.Fun) && !isType(v.Fun)
	}
	return false
}

func isType(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && (id.Name == "string" || id.Name == "bool")
}

func literalSecret(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	if !ok || l.Kind != token.STRING {
		return false
	}
	s, _ := strconv.Unquote(l.Value)
	return secretWord(s)
}

func secretWord(name string) bool {
	return secretName.MatchString(name) && !notSecret.MatchString(name)
}

// TestSecretsComparedInConstantTime fails on every `==` or `!=` between
// values that name a secret in the module's non-test Go code: signatures,
// keys, secrets, passwords and tokens must be compared with
// crypto/subtle.ConstantTimeCompare or hmac.Equal.
func TestSecretsComparedInConstantTime(t *testing.T) {
	root := testenv.ModuleRoot(t)
	fset := token.NewFileSet()
	var found []finding
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		found = append(found, secretCompares(fset, f, src)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		rel, _ := filepath.Rel(root, f.pos.Filename)
		t.Errorf("%s:%d: %s compares a secret with == or !=; use subtle.ConstantTimeCompare or hmac.Equal", rel, f.pos.Line, f.expr)
	}
}
