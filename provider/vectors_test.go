package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// The families' tests read provider/testdata/provider-vectors.json; it must
// stay the copy of the shared vectors, computed outside the project.
func TestVectorsAreTheSharedCopy(t *testing.T) {
	local, err := os.ReadFile(filepath.Join("testdata", "provider-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := os.ReadFile(filepath.Join("..", "..", "shared", "testdata", "provider-vectors.json"))
	if err != nil {
		testenv.Skipf(t, "no shared vectors beside the checkout: %v", err)
	}
	if string(shared) != string(local) {
		t.Fatal("provider/testdata/provider-vectors.json differs from ../shared/testdata/provider-vectors.json: copy it again")
	}
}
