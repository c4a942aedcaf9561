package testenv

import (
	"testing"
	"time"
)

// Eventually fails t unless cond holds within the given time. It polls
// rather than sleeps a fixed time, so a test waits only as long as the
// system under test needs (no timing assertion); the pause between polls
// grows from 5 ms to 50 ms, so a quick condition is seen at once and a slow
// one (an HTTP call or a ClickHouse query per poll) does not load the
// shared servers.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 5 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}
