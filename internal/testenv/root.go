package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// ModuleRoot is the directory holding go.mod, found upwards from the
// test's working directory: tests that read the repository's own files
// (docs, scripts) start there.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
