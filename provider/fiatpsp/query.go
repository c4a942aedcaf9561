package fiatpsp

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/schema"
)

// The provider's order statuses.
const (
	StatusNew       = "0"
	StatusPaid      = "1"
	StatusRefund    = "6"
	StatusError     = "8"
	StatusCancelled = "9"
)

// outcomes maps the provider's order statuses to what they mean for us.
var outcomes = map[string]provider.Outcome{
	StatusNew:       provider.OutcomePending,
	StatusPaid:      provider.OutcomePaid,
	StatusRefund:    provider.OutcomeRefunded,
	StatusError:     provider.OutcomeFailed,
	StatusCancelled: provider.OutcomeCancelled,
}

// Query asks the provider for the order with our order id (and its own id
// ref, when known) and says what became of it. It is the only way to learn
// of a failure: the provider notifies payments only.
func (a *Adapter) Query(ctx context.Context, orderID, ref string) (provider.Notification, error) {
	params := map[string]string{"paymentId": orderID}
	if _, ok := PositiveID(ref); ok {
		params["orderId"] = ref
	}
	ans, err := a.signedGet(ctx, "status", "/orders", params)
	if err != nil {
		return provider.Notification{}, err
	}
	var out OrdersAnswer
	if err := decodeAnswer(ans, &out); err != nil {
		return provider.Notification{}, fmt.Errorf("fiatpsp status: %w", err)
	}
	if len(out.Orders) > maxOrders {
		return provider.Notification{}, fmt.Errorf("fiatpsp status: %d orders: %w", len(out.Orders), errBadAnswer)
	}
	for _, o := range out.Orders {
		if o.MerchantOrderID == orderID && (params["orderId"] == "" || o.OrderID.String() == ref) {
			return readOrder(o)
		}
	}
	return provider.Notification{}, fmt.Errorf("fiatpsp status: order %q: %w", clean(orderID), provider.ErrNotFound)
}

// readOrder is an order row as a Notification; money counts only when the
// provider says it was paid (or paid and refunded).
func readOrder(o WireOrder) (provider.Notification, error) {
	outcome, ok := outcomes[o.Status.String()]
	ref, okRef := PositiveID(o.OrderID.String())
	if !ok || !okRef {
		return provider.Notification{}, fmt.Errorf("fiatpsp status: status %q of order %q: %w", clean(o.Status.String()), clean(o.OrderID.String()), errBadAnswer)
	}
	n := provider.Notification{
		OrderID: o.MerchantOrderID, Ref: fmt.Sprint(ref), InitRef: fmt.Sprint(ref), Outcome: outcome,
		Fields: map[string]string{"status": clean(o.Status.String()), "amount": clean(string(o.Amount)), "currency": clean(o.Currency), "date": clean(o.Date)},
	}
	if outcome == provider.OutcomePaid || outcome == provider.OutcomeRefunded {
		amount, err := schema.ParseAmount(string(o.Amount))
		if err != nil || !decimal.Currency(o.Currency) {
			return provider.Notification{}, fmt.Errorf("fiatpsp status: amount %q %q: %w", clean(string(o.Amount)), clean(o.Currency), errBadAnswer)
		}
		n.Paid = provider.Money{Amount: amount, Currency: o.Currency}
	}
	return n, nil
}
