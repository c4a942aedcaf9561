package browser

import (
	"fmt"
	"testing"
)

// fakeTB stands in for the testing.TB of a test that is meant to fail or
// skip: it records the message, and Fatalf and Skipf stop the caller (as
// the real ones do) with a panic that catch recovers.
type fakeTB struct {
	testing.TB // the real test: Name, Cleanup, TempDir, Helper...
	failed     bool
	skipped    bool
	msg        string
}

type stopped struct{}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.failed, f.msg = true, f.msg+fmt.Sprintf(format, args...)+"\n"
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	panic(stopped{})
}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, args...)
	panic(stopped{})
}

// catch runs fn, which may stop through the fake's Fatalf or Skipf.
func catch(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
		}
	}()
	fn()
}
