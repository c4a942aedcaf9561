package testenv

import (
	"fmt"
	"testing"
	"time"
)

// fatalRecorder keeps Fatalf's message instead of ending the test, so the
// test can see Eventually give up.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }

func TestEventually(t *testing.T) {
	tests := []struct {
		name    string
		trueAt  int // the poll from which cond holds; 0 never
		wantMsg string
	}{
		{"holds at once", 1, ""},
		{"holds after a few polls", 4, ""},
		{"never holds", 0, "the thing: not within 30ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &fatalRecorder{TB: t}
			polls := 0
			Eventually(rec, 30*time.Millisecond, "the thing", func() bool {
				polls++
				return tc.trueAt > 0 && polls >= tc.trueAt
			})
			if rec.msg != tc.wantMsg {
				t.Fatalf("failure %q, want %q", rec.msg, tc.wantMsg)
			}
			if tc.trueAt > 0 && polls != tc.trueAt {
				t.Fatalf("polled %d times, want %d", polls, tc.trueAt)
			}
		})
	}
}
