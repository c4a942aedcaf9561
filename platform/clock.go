package platform

import "time"

// Clock is the time a process decides things by: the created and expiry
// times it writes into orders, the deadlines it compares against times
// other processes wrote. It is a seam rather than time.Now everywhere
// because a Go program reads the kernel's clock through the vDSO, where
// libfaketime cannot move it; the fault suite skews one process's Clock
// instead (GATEWAY_CLOCK_OFFSET). Durations measured for metrics stay on
// the real clock.
type Clock func() time.Time

// Now is c's time, or the system's when c is nil, so a zero Config field
// means the real clock.
func (c Clock) Now() time.Time {
	if c == nil {
		return time.Now()
	}
	return c()
}

// OffsetClock is the system clock moved by offset; a zero offset is
// time.Now itself.
func OffsetClock(offset time.Duration) Clock {
	if offset == 0 {
		return time.Now
	}
	return func() time.Time { return time.Now().Add(offset) }
}
