package apidoc

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/paygate/gateway/platform"
)

// TestErrorKindsAreTheTable holds the document's error kinds to platform's
// one table from kinds to status: a kind added there must be described here.
func TestErrorKindsAreTheTable(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				ErrorKind struct {
					Enum []string `json:"enum"`
				} `json:"ErrorKind"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for k := range platform.Kinds() {
		want = append(want, string(k))
	}
	got := slices.Clone(doc.Components.Schemas.ErrorKind.Enum)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("document's error kinds %v, platform's %v", got, want)
	}
}
