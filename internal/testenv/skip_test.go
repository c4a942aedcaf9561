package testenv

import (
	"testing"
)

// endTB records how a test was ended instead of ending it.
type endTB struct {
	testing.TB
	failed, skipped bool
}

func (e *endTB) Helper()               {}
func (e *endTB) Fatalf(string, ...any) { e.failed = true }
func (e *endTB) Skipf(string, ...any)  { e.skipped = true }

// TestSkipfFailsUnderCI: Skipf skips on a developer's machine and fails
// under CI=true.
func TestSkipfFailsUnderCI(t *testing.T) {
	for _, tc := range []struct {
		ci           string
		failed, skip bool
	}{{"true", true, false}, {"", false, true}, {"false", false, true}} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			e := &endTB{TB: t}
			Skipf(e, "no %s here", "file")
			if e.failed != tc.failed || e.skipped != tc.skip {
				t.Fatalf("failed %v skipped %v, want %v %v", e.failed, e.skipped, tc.failed, tc.skip)
			}
		})
	}
}
