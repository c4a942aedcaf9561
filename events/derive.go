package events

import (
	"strconv"

	"github.com/paygate/gateway/schema"
)

// Derived is one catalogue event a stream entry means: the merchant it is
// for, and the object it is about (the engine keeps each endpoint's events
// of one object in order: an order's refund never before its payment).
type Derived struct {
	AppID  string
	Object string
	Event  Event
}

// Objects an event is about, as Derived.Object names them: a merchant's
// order, payout, destination or balance in one currency.
func OrderObject(id string) string         { return "order:" + id }
func PayoutObject(id string) string        { return "payout:" + id }
func DestinationObject(id string) string   { return "destination:" + id }
func BalanceObject(currency string) string { return "balance:" + currency }

// RefundData is a refund event's data: the refund as the refund API shows
// it, and its order (GET /api/order's object) with what its refunds gave
// back in all.
type RefundData struct {
	schema.RefundView
	Order schema.OrderView `json:"order"`
}

// FromOrder is what an entry of an order stream means to the order's
// merchant (none for most entries: created, ready, changed). base is the
// public URL the order's links are made of, as the API's.
//
// An event's source makes its id: the same entry derived twice (a fan-out
// that crashed before acknowledging) gives the same id, two happenings two
// ids. An order is paid, fails, is cancelled or expires at most once, so
// its id is the source of those; each refund ends once (its id); a USDT
// review may reject several transfers of one order (its version then).
func FromOrder(ev schema.Event, base string) ([]Derived, error) {
	o := &ev.Order
	var out []Derived
	add := func(t Type, source string, data any) error {
		e, err := New(t, source, ev.At, data)
		if err == nil {
			out = append(out, Derived{AppID: o.AppID, Object: OrderObject(o.ID), Event: e})
		}
		return err
	}
	var err error
	switch ev.Type {
	case schema.EventPaid:
		err = add(OrderPaid, o.ID, schema.View(o, base))
		if err == nil && ev.USDT == schema.USDTLate {
			err = add(USDTLate, o.ID, schema.View(o, base))
		}
	case schema.EventFailed:
		err = add(OrderFailed, o.ID, schema.View(o, base))
	case schema.EventCancelled:
		t := OrderCancelled
		if o.Expired {
			t = OrderExpired
		}
		err = add(t, o.ID, schema.View(o, base))
	case schema.EventChanged:
		if t, ok := usdtAmount[ev.USDT]; ok {
			err = add(t, o.ID+"@"+strconv.FormatInt(o.Version, 10), schema.View(o, base))
		}
	case schema.EventRefund:
		err = refundEvent(ev, base, add)
	}
	return out, err
}

// usdtAmount are the review findings that are events of their own.
var usdtAmount = map[string]Type{schema.USDTUnderpaid: USDTUnderpaid, schema.USDTOverpaid: USDTOverpaid}

// refundEvent is an ended refund's event; a refund asked for (pending)
// is none: the merchant learns how it ended.
func refundEvent(ev schema.Event, base string, add func(Type, string, any) error) error {
	r := ev.Refund
	if r == nil {
		return nil
	}
	data := RefundData{RefundView: schema.ViewRefund(r), Order: schema.View(&ev.Order, base)}
	switch r.Status {
	case schema.RefundSucceeded:
		return add(OrderRefunded, r.ID, data)
	case schema.RefundFailed:
		return add(RefundFailed, r.ID, data)
	}
	return nil
}
