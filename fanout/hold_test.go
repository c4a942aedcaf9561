package fanout

import (
	"testing"
	"time"
)

// TestHolds: after a failure only the oldest held entry of the object may
// be tried, later ones wait behind it, other objects go on; a hold whose
// oldest entry never comes back (another process took it) is dropped.
func TestHolds(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	h := newHolds(time.Minute)
	h.now = func() time.Time { return now }
	steps := []struct {
		name string
		do   func() bool
		want bool
	}{
		{"a first entry may be tried", func() bool { return h.mayTry("o1", "1-0") }, true},
		{"its failure holds it", func() bool { h.failed("o1", "1-0"); return h.mayTry("o1", "2-0") }, false},
		{"another object goes on", func() bool { return h.mayTry("o2", "3-0") }, true},
		{"the oldest held may be tried again", func() bool { return h.mayTry("o1", "1-0") }, true},
		{"once it is done the next is oldest", func() bool { h.done("o1", "1-0"); return h.mayTry("o1", "2-0") }, true},
		{"and after it, nothing is held", func() bool { h.done("o1", "2-0"); return h.mayTry("o1", "4-0") }, true},
		{"a new failure holds again", func() bool { h.failed("o1", "4-0"); return h.mayTry("o1", "5-0") }, false},
		{"until the oldest stays away too long", func() bool { now = now.Add(2 * time.Minute); return h.mayTry("o1", "5-0") }, true},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("%s: %v, want %v", s.name, got, s.want)
		}
	}
	h.failed("o3", "6-0")
	now = now.Add(2 * time.Minute)
	h.failed("o4", "7-0")
	h.sweep()
	if len(h.by) != 1 || h.by["o4"] == nil { // o3's hold went stale, o4's is fresh
		t.Fatalf("after the sweep: %v", h.by)
	}
}
