package schema

import "fmt"

// Status is an order's state as SPEC.md numbers it; the numbers are part of the
// merchant API and must never be renumbered.
type Status int

const (
	StatusPending   Status = 0
	StatusReady     Status = 1
	StatusPaid      Status = 2
	StatusFailed    Status = 3
	StatusCancelled Status = 4
)

var statusNames = [...]string{"pending", "ready", "paid", "failed", "cancelled"}

// String is the status name merchants see in status_str and statusString.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("status(%d)", int(s))
	}
	return statusNames[s]
}

// Live reports whether the order can still be paid by the payer's flow; only
// live orders hold their clientOrderId.
func (s Status) Live() bool { return s == StatusPending || s == StatusReady }

// Final reports whether no ordinary transition leaves this status. A failed or
// cancelled order can still become paid by a late payment (DESIGN.md), so only
// paid is truly terminal; Final is about retention and idempotency keys.
func (s Status) Final() bool { return !s.Live() }

// CanMoveTo encodes DESIGN.md's transition table. A move to the same status is
// not a move (it is a no-op for the caller to ignore).
func (s Status) CanMoveTo(to Status) bool {
	switch {
	case s == to || s == StatusPaid:
		return false
	case to == StatusPaid:
		return true
	case to == StatusReady:
		return s == StatusPending
	case to == StatusFailed || to == StatusCancelled:
		return s.Live()
	}
	return false
}

// ParseStatus accepts a status name or its number, as merchants filter by either.
func ParseStatus(v string) (Status, bool) {
	for i, n := range statusNames {
		if v == n || v == fmt.Sprint(i) {
			return Status(i), true
		}
	}
	return 0, false
}
