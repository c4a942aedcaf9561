package client

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeShowsTheExamples: the README's quick start and webhook
// receiver are the compiled examples' lines, so the README cannot show
// code that no longer builds.
func TestReadmeShowsTheExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile(`(?s)\t// (quick start|webhook) \{\n(.*?)\t// \}\n`).FindAllStringSubmatch(string(src), -1)
	if len(blocks) != 2 {
		t.Fatalf("found %d marked blocks in example_test.go, want 2", len(blocks))
	}
	for _, b := range blocks {
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(b[2], "\n"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
		if !strings.Contains(string(readme), strings.Join(lines, "\n")) {
			t.Errorf("README.md does not show the %s example as example_test.go has it:\n%s", b[1], strings.Join(lines, "\n"))
		}
	}
}
