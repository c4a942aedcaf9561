package events

import (
	"fmt"
	"slices"
	"strings"
)

// Version is the catalogue's version, sent in every envelope: a receiver
// can tell a shape it was written for from a later one. It changes only
// when a type's data changes incompatibly; new types and new fields do
// not change it.
const Version = "2026-11-28"

// Type names what happened, as "<object>.<what>".
type Type string

// The catalogue. Each type's data is the object the API returns for it:
// the order (GET /api/order's object), the refund, the payout, the
// destination, or the balance.
const (
	OrderPaid        Type = "order.paid"
	OrderFailed      Type = "order.failed"
	OrderCancelled   Type = "order.cancelled"
	OrderExpired     Type = "order.expired"
	OrderRefunded    Type = "order.refunded"
	RefundFailed     Type = "refund.failed"
	USDTUnderpaid    Type = "usdt.underpaid"
	USDTOverpaid     Type = "usdt.overpaid"
	USDTLate         Type = "usdt.late"
	BalanceSettled   Type = "balance.settled"
	PayoutRequested  Type = "payout.requested"
	PayoutApproved   Type = "payout.approved"
	PayoutRejected   Type = "payout.rejected"
	PayoutPaid       Type = "payout.paid"
	PayoutFailed     Type = "payout.failed"
	DestinationEdit  Type = "payout_destination.changed"
	EndpointTest     Type = "endpoint.test"
	EndpointDisabled Type = "endpoint.disabled"
)

// Info describes one type for the documentation, the console's catalogue
// and the OpenAPI document.
type Info struct {
	Type   Type
	Object string // what data is: order, refund, payout, destination, balance, endpoint
	About  string // when it is sent, in one sentence
}

// Catalogue is every type a merchant may subscribe to, in the order the
// documentation lists them.
var Catalogue = []Info{
	{OrderPaid, "order", "An order was paid (also sent as SPEC.md's callback to notify_url, which stays as it is)."},
	{OrderFailed, "order", "The provider reported the payment failed; the order is final."},
	{OrderCancelled, "order", "The payer or the merchant cancelled the order before it was paid."},
	{OrderExpired, "order", "The order's payment window ended unpaid: release what was held for it."},
	{OrderRefunded, "refund", "A refund of an order succeeded, in part or in full; data.order.refundedAmount says how much in all."},
	{RefundFailed, "refund", "A refund could not be made; the money is still the merchant's."},
	{USDTUnderpaid, "order", "A USDT transfer for the order arrived short of the amount; the review refused it and the order stays unpaid."},
	{USDTOverpaid, "order", "A USDT transfer for the order arrived above the amount; the review refused it (only the exact amount pays) and the order stays unpaid."},
	{USDTLate, "order", "A USDT transfer paid the order after it had expired or been cancelled: it is paid late (order.paid is sent too)."},
	{BalanceSettled, "balance", "Payments moved from pending to available on the merchant's settlement schedule."},
	{PayoutRequested, "payout", "A payout was asked for and its amount and fee held."},
	{PayoutApproved, "payout", "An operator (or the auto-approve threshold) approved a payout."},
	{PayoutRejected, "payout", "An operator rejected a payout; the amount and fee are available again."},
	{PayoutPaid, "payout", "A payout was sent (transaction hash or bank reference)."},
	{PayoutFailed, "payout", "Sending a payout failed; the amount and fee are available again."},
	{DestinationEdit, "destination", "A payout destination was added or removed."},
	{EndpointTest, "endpoint", "A test event asked for from the console; it changes nothing."},
	{EndpointDisabled, "endpoint", "An endpoint was disabled after failing for three days (sent to the merchant's other endpoints)."},
}

// Known reports whether t is in the catalogue.
func Known(t Type) bool {
	return slices.ContainsFunc(Catalogue, func(i Info) bool { return i.Type == t })
}

// ParseTypes reads a subscription: comma-separated types, or "*" (or
// nothing) for every type. An unknown type is refused, not ignored: a
// typo would otherwise subscribe to nothing without a word.
func ParseTypes(s string) ([]Type, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return nil, nil
	}
	var out []Type
	for _, f := range strings.Split(s, ",") {
		t := Type(strings.TrimSpace(f))
		if !Known(t) {
			return nil, fmt.Errorf("%q is not an event type (the catalogue lists them)", string(t))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}
