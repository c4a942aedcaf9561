package testenv

import "testing"

// Skipf ends a test that cannot run here for want of something outside it
// (a file beside the checkout, a port to listen on again): a skip on a
// developer's machine, a failure under CI=true, where a skipped test would
// pass without running.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	if inCI() {
		t.Fatalf("cannot be skipped under CI=true: "+format, args...)
		return
	}
	t.Skipf(format, args...)
}
