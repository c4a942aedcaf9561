package cryptopsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
)

// statusOutcomes is what each payment status means; only finished is paid
// in full.
var statusOutcomes = map[string]provider.Outcome{
	"waiting":        provider.OutcomePending,
	"confirming":     provider.OutcomePending,
	"confirmed":      provider.OutcomePending, // the chain confirmed it; the provider has not finished
	"sending":        provider.OutcomePending,
	"partially_paid": provider.OutcomePartial,
	"finished":       provider.OutcomePaid,
	"failed":         provider.OutcomeFailed,
	"expired":        provider.OutcomeExpired,
	"refunded":       provider.OutcomeRefunded,
}

// Scalar is a string or a number's literal as a string.
func Scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return string(x), true
	}
	return "", false
}

// readPayment turns a payment object (an IPN, or the payment status the
// API answers) into a Notification. An unknown status is pending, so that
// a status added by the provider changes nothing until we know it. Paid is
// set only when finished: price_amount in price_currency, exactly; partial
// amounts are in the cryptocurrency and stay in Fields.
func readPayment(o Object) (provider.Notification, error) {
	ref, _ := Scalar(o["payment_id"])
	status, _ := o["payment_status"].(string)
	orderID, _ := o["order_id"].(string)
	var errs []error
	if ref == "" || len(ref) > 64 {
		errs = append(errs, errors.New("no payment_id"))
	}
	if status == "" {
		errs = append(errs, errors.New("no payment_status"))
	}
	if orderID == "" || len(orderID) > 128 {
		errs = append(errs, errors.New("no order_id"))
	}
	if len(errs) > 0 {
		return provider.Notification{}, errors.Join(errs...)
	}
	outcome, known := statusOutcomes[status]
	if !known {
		outcome = provider.OutcomePending
	}
	n := provider.Notification{OrderID: orderID, Ref: ref, Outcome: outcome, Fields: fieldsOf(o)}
	// The invoice Initialise created, when the payment names it (a payment
	// made on an invoice does; the vectors' IPN carries none).
	if inv, _ := Scalar(o["invoice_id"]); inv != "" && len(inv) <= 64 {
		n.InitRef = inv
	}
	if outcome == provider.OutcomePaid {
		p, err := priceOf(o)
		if err != nil {
			return provider.Notification{}, err
		}
		n.Paid = p
	}
	return n, nil
}

// priceOf is the payment's price in fiat, exactly.
func priceOf(o Object) (provider.Money, error) {
	lit, _ := Scalar(o["price_amount"])
	a, err := decimal.ParseMinor(lit, decimal.Exact)
	if err != nil || a <= 0 {
		return provider.Money{}, fmt.Errorf("price_amount %q: %w", clip(lit), errors.Join(decimal.ErrSyntax, err))
	}
	cur, _ := o["price_currency"].(string)
	cur = strings.ToUpper(cur)
	if !decimal.Currency(cur) {
		return provider.Money{}, fmt.Errorf("price_currency %q: %w", clip(cur), decimal.ErrCurrency)
	}
	return provider.Money{Amount: a, Currency: cur}, nil
}

// maxFields bounds what is kept of one notification.
const maxFields = 64

// fieldsOf keeps the payment's fields for support: scalars as written,
// nested objects one level deep as "outer.inner"; arrays are left out. The
// IPN carries no secret and no payer data beyond the deposit address.
func fieldsOf(o Object) map[string]string {
	f := map[string]string{}
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if len(f) >= maxFields {
			break
		}
		switch x := o[k].(type) {
		case Object:
			for kk, vv := range x {
				if s, ok := scalarText(vv); ok && len(f) < maxFields {
					f[clip(k+"."+kk)] = clip(s)
				}
			}
		default:
			if s, ok := scalarText(x); ok {
				f[clip(k)] = clip(s)
			}
		}
	}
	return f
}

// scalarText is a scalar's text, booleans included.
func scalarText(v any) (string, bool) {
	if b, ok := v.(bool); ok {
		return strconv.FormatBool(b), true
	}
	return Scalar(v)
}

// clip bounds a kept text.
func clip(s string) string {
	if len(s) > 256 {
		return s[:256]
	}
	return s
}
