package browser

import (
	"strings"
	"testing"
)

// The browser is found through CHROMIUM or PATH; a missing one skips on a
// developer's machine and fails under CI=true, where a skip would let the
// end-to-end tests pass without running.
func TestFindChromium(t *testing.T) {
	cases := []struct {
		name, chromium, ci string
		wantFail, wantSkip bool
		wantMsg            string
	}{
		{name: "missing, developer machine", wantSkip: true, wantMsg: "scripts/deps.sh"},
		{name: "missing, CI", ci: "true", wantFail: true, wantMsg: "CI=true"},
		{name: "CHROMIUM names nothing", chromium: "/nonexistent/chromium", wantFail: true, wantMsg: ChromiumEnv},
		{name: "CHROMIUM names nothing, CI", chromium: "/nonexistent/chromium", ci: "true", wantFail: true, wantMsg: ChromiumEnv},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir()) // no browser on PATH
			t.Setenv(ChromiumEnv, tc.chromium)
			t.Setenv("CI", tc.ci)
			f := &fakeTB{TB: t}
			catch(func() { findChromium(f) })
			if f.failed != tc.wantFail || f.skipped != tc.wantSkip {
				t.Fatalf("failed=%v skipped=%v (%q); want failed=%v skipped=%v", f.failed, f.skipped, f.msg, tc.wantFail, tc.wantSkip)
			}
			if !strings.Contains(f.msg, tc.wantMsg) {
				t.Errorf("message %q does not mention %q", f.msg, tc.wantMsg)
			}
		})
	}
}
