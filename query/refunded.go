package query

import "github.com/paygate/gateway/schema"

// Refunded narrows a listing to paid orders by how much was refunded: a
// paid order keeps its status when refunded, so "refunded" is not a
// status but the refunded amount measured against the order's.
type Refunded uint8

// The refund states a listing may ask for.
const (
	RefundedAny  Refunded = iota // no narrowing
	RefundedPart                 // paid, some but not all refunded
	RefundedAll                  // paid, all of it refunded
)

// RefundedOf is the refund state of o: RefundedAny for an order nothing of
// which was refunded (or not paid).
func RefundedOf(o *schema.Order) Refunded {
	switch {
	case o.Status != schema.StatusPaid || o.Refunded <= 0:
		return RefundedAny
	case o.Refunded < o.Amount:
		return RefundedPart
	}
	return RefundedAll
}

// Match reports whether o is in state r.
func (r Refunded) Match(o *schema.Order) bool {
	return r == RefundedAny || RefundedOf(o) == r
}

// foldedCond is r as a condition on a folded listing row (st, the latest
// status; rfd, the latest refunded amount; amt, the order's amount); ""
// for RefundedAny.
func (r Refunded) foldedCond() string {
	switch r {
	case RefundedPart:
		return "st = ? AND rfd > 0 AND rfd < amt"
	case RefundedAll:
		return "st = ? AND rfd > 0 AND rfd >= amt"
	}
	return ""
}
