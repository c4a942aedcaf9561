package docrules

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// exempt is this package: its comments and tests must quote the very
// references the rule forbids.
const exempt = "internal/docrules/"

// TestNoTrackerNumbers walks every file the rule reads and fails with
// file:line for each tracker number, so the text says why instead.
func TestNoTrackerNumbers(t *testing.T) {
	root := testenv.ModuleRoot(t)
	files := trackedFiles(t, root)
	read := 0
	for _, rel := range files {
		if !Wanted(rel) || strings.HasPrefix(rel, exempt) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		read++
		found, err := Scan(rel, bytes.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			t.Errorf("%s: a tracker number tells a reader nothing; say the reason, requirement or figure instead", f)
		}
	}
	if read < 100 {
		t.Fatalf("read only %d files: the walk lost the repository", read)
	}
}

// TestScanFindsPlanted holds Scan to the forms a tracker number takes and
// to the text that only looks like one.
func TestScanFindsPlanted(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []int // lines reported
	}{
		{"issue and number", "// The ceiling (issue 6): release build.", []int{1}},
		{"capitalised, possessive", "Issue 28's goal is 45 µs.", []int{1}},
		{"issue with hash", "see issue #14 for the headers", []int{1}},
		{"issues listed", "it (issues 15 and 22).", []int{1}},
		{"run together", `const secret = "whsec-issue21"`, []int{1}},
		{"pull request form", "Rules (#12) for keys.", []int{1}},
		{"closing keyword", "fixes #12", []int{1}},
		{"own repository link", "https://github.com/paygate/gateway/issues/28", []int{1}},
		{"own repository short form", "paygate/gateway#28", []int{1}},
		{"wrapped in a Go comment", "// the create `make bench` headlines (issue\n// 28): select in USD", []int{1}},
		{"wrapped in Markdown", "stored as before issue\n28 (its id in its hash)", []int{1}},
		{"wrapped in Lua", "-- the hash holds none (issue\n-- 28).", []int{1}},
		{"upstream short form", "go1.27 changed it (golang/go#71234).", nil},
		{"upstream link", "https://github.com/golang/go/issues/71234", nil},
		{"order number in test data", `Description: "订单 #42 café"`, nil},
		{"PKCS", "parse PKCS #8 key", nil},
		{"CSS colour", "dt{color:#555}", nil},
		{"issued and reissue", "issued 3 keys; reissue 2 tokens", nil},
		{"issue without number", "the issue time of a credential", nil},
		{"HTTP status and step", "answers 409 at step 2 (RFC 6238)", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, err := Scan("planted", strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, f := range found {
				got = append(got, f.Line)
			}
			if !equalInts(got, tc.want) {
				t.Errorf("lines %v, want %v (%v)", got, tc.want, found)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// trackedFiles lists the files git tracks, slash-separated and relative to
// root. Without git (a source tarball) it walks the tree instead, leaving
// out .git, .deps and node_modules.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".deps", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
