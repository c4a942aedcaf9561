package events

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestDocsListTheCatalogue holds docs/events.md's table to Catalogue:
// every type a row, no row a type the catalogue lacks, with its object.
func TestDocsListTheCatalogue(t *testing.T) {
	raw, err := os.ReadFile("../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z_]+\\.[a-z_]+)` \\| ([a-z]+) \\|").FindAllStringSubmatch(string(raw), -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[1]+" "+r[2])
	}
	var want []string
	for _, i := range Catalogue {
		want = append(want, string(i.Type)+" "+i.Object)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("docs/events.md lists %v, the catalogue is %v", got, want)
	}
}
