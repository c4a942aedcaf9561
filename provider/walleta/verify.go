package walleta

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// maxNotifyBody bounds a notification: the provider's are about 1 KiB.
const maxNotifyBody = 64 << 10

// Trade statuses the provider reports.
const (
	StatusWaitBuyerPay  = "WAIT_BUYER_PAY"
	StatusTradeSuccess  = "TRADE_SUCCESS"
	StatusTradeFinished = "TRADE_FINISHED"
	StatusTradeClosed   = "TRADE_CLOSED"
)

// Verify proves a notification (a form POST signed with the provider's key)
// and says what it means. The signature is checked first, then that it is
// for our app, then its content.
func (a *Adapter) Verify(_ context.Context, r *provider.Request) (provider.Notification, error) {
	fields, err := formFields(r)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_a notification: %w", err)
	}
	if err := verifyNotification(a.providerKey, fields); err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_a: %w", err)
	}
	if fields["app_id"] != a.cfg.AppID {
		return provider.Notification{}, fmt.Errorf("wallet_a notification for app %q, not ours: %w", fields["app_id"], provider.ErrMalformed)
	}
	n, err := toNotification(fields)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_a notification: %w", err)
	}
	delete(fields, "sign")
	n.Fields = fields
	return n, nil
}

// formFields reads the notification's form, each field once; the request
// is bounded whether or not the gateway parsed the form.
func formFields(r *provider.Request) (map[string]string, error) {
	if len(r.Body) > maxNotifyBody {
		return nil, fmt.Errorf("body over %d bytes: %w", maxNotifyBody, provider.ErrMalformed)
	}
	f, err := wire.Form(r, wire.Limits{})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", provider.ErrMalformed, err)
	}
	return f, nil
}

// toNotification maps a trade's fields (a notification's or a query
// answer's) to a Notification.
//
// TRADE_CLOSED is OutcomeFailed: it is the provider's only word for a
// trade that ended without money (the payer's payment did not go through,
// or the provider gave up on it), and to the merchant that is a failed
// payment. Our own expiry cancels the order at its TTL first; a closure
// arriving after that finds the order final and changes nothing (verdict
// ignored). The same status closes a paid trade that was refunded in full:
// with a refund amount it is OutcomeRefunded.
func toNotification(f map[string]string) (provider.Notification, error) {
	n := provider.Notification{OrderID: f["out_trade_no"], Ref: f["trade_no"]}
	if n.OrderID == "" || len(n.OrderID) > MaxOrderID || len(n.Ref) > MaxOrderID {
		return n, fmt.Errorf("out_trade_no or trade_no missing or too long: %w", provider.ErrMalformed)
	}
	switch f["trade_status"] {
	case StatusWaitBuyerPay:
		n.Outcome = provider.OutcomePending
	case StatusTradeSuccess, StatusTradeFinished:
		paid, err := paidMoney(f)
		if err != nil {
			return n, err
		}
		n.Outcome, n.Paid = provider.OutcomePaid, paid
	case StatusTradeClosed:
		n.Outcome = provider.OutcomeFailed
		if f["refund_fee"] != "" || f["gmt_refund"] != "" {
			n.Outcome = provider.OutcomeRefunded
		}
	default:
		return n, fmt.Errorf("trade_status %q: %w", f["trade_status"], provider.ErrMalformed)
	}
	return n, nil
}

// paidMoney is what a paid trade says it received: total_amount, parsed
// exactly, in trans_currency when the trade was priced in one, else CNY.
func paidMoney(f map[string]string) (provider.Money, error) {
	if f["trade_no"] == "" {
		return provider.Money{}, fmt.Errorf("paid trade without trade_no: %w", provider.ErrMalformed)
	}
	amt, err := schema.ParseAmount(f["total_amount"])
	if err != nil {
		return provider.Money{}, fmt.Errorf("total_amount %q: %w", f["total_amount"], errors.Join(provider.ErrMalformed, err))
	}
	cur := "CNY"
	if c := f["trans_currency"]; c != "" {
		if !decimal.Currency(c) {
			return provider.Money{}, fmt.Errorf("trans_currency %q: %w", c, provider.ErrMalformed)
		}
		cur = c
	}
	return provider.Money{Amount: amt, Currency: cur}, nil
}

// Reply is the text the provider expects: "success" once we have the
// notification, anything else makes it send again. A refused notification
// gets 400 "fail"; our own trouble 500 "fail", so that it comes back.
func (a *Adapter) Reply(_ provider.Notification, err error) provider.Reply {
	const text = "text/plain; charset=utf-8"
	switch {
	case err == nil:
		return provider.Reply{Status: http.StatusOK, ContentType: text, Body: "success"}
	case errors.Is(err, provider.ErrSignature), errors.Is(err, provider.ErrMalformed):
		return provider.Reply{Status: http.StatusBadRequest, ContentType: text, Body: "fail"}
	default:
		return provider.Reply{Status: http.StatusInternalServerError, ContentType: text, Body: "fail"}
	}
}
