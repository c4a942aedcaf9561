package bdcard

import (
	"context"
	"fmt"
	"net/url"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
)

// maxElements bounds the transactions a query answer may list.
const maxElements = 50

// queryAnswer is the transaction query's answer: every attempt the provider
// knows under our transaction id.
type queryAnswer struct {
	APIConnect wire.Text      `json:"APIConnect"`
	Found      wire.Text      `json:"no_of_trans_found"`
	Elements   []queryAttempt `json:"element"`
}

type queryAttempt struct {
	validation
	BankTranID wire.Text `json:"bank_tran_id"`
}

// Query asks the provider what became of an order's payment, by our
// transaction id (ref, the session key, is not needed). An attempt that is
// VALID or VALIDATED without risk, for this order, is a payment in full;
// otherwise the most telling status wins: failed, cancelled, expired, then
// pending. No attempt at all wraps provider.ErrNotFound.
func (a *Adapter) Query(ctx context.Context, orderID, _ string) (provider.Notification, error) {
	if err := wire.CheckID("order id", orderID); err != nil {
		return provider.Notification{}, fmt.Errorf("%s query: %w: %w", a.cfg.Family, provider.ErrMalformed, err)
	}
	q := url.Values{"tran_id": {orderID}, "store_id": {a.cfg.StoreID}, "store_passwd": {a.cfg.StorePassword}, "format": {"json"}}
	body, err := a.get(ctx, "query", a.cfg.QueryPath, q)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("%s query %s: %w", a.cfg.Family, orderID, err)
	}
	var ans queryAnswer
	if err := wire.DecodeJSON(body, &ans); err != nil {
		return provider.Notification{}, fmt.Errorf("%s query %s: %w", a.cfg.Family, orderID, err)
	}
	if ans.APIConnect != "DONE" {
		return provider.Notification{}, fmt.Errorf("%s query %s: APIConnect %q: %w", a.cfg.Family, orderID, wire.Clip(string(ans.APIConnect), 32), provider.ErrRefused)
	}
	if len(ans.Elements) > maxElements {
		return provider.Notification{}, fmt.Errorf("%s query %s: %d attempts: %w", a.cfg.Family, orderID, len(ans.Elements), provider.ErrUnavailable)
	}
	return summarise(orderID, ans.Elements)
}

// unpaid maps the statuses of attempts that did not pay; when several
// differ, the lowest outcome wins (failed, then cancelled, then expired).
var unpaid = map[string]provider.Outcome{
	StatusFailed: provider.OutcomeFailed, StatusCancelled: provider.OutcomeCancelled,
	StatusExpired: provider.OutcomeExpired, StatusUnattempted: provider.OutcomePending, StatusPending: provider.OutcomePending,
}

func summarise(orderID string, attempts []queryAttempt) (provider.Notification, error) {
	n := provider.Notification{OrderID: orderID, Outcome: provider.OutcomePending}
	found := false
	for _, e := range attempts {
		if string(e.TranID) != orderID {
			continue
		}
		found = true
		if (e.Status == StatusValid || e.Status == StatusValidated) && e.RiskLevel == "0" {
			paid, err := decimal.PaddedMoney(string(e.Amount), string(e.Currency))
			if err != nil {
				return provider.Notification{}, fmt.Errorf("query %s: %w: %w", orderID, provider.ErrUnavailable, err)
			}
			n.Outcome, n.Paid, n.Ref = provider.OutcomePaid, paid, string(e.BankTranID)
			n.Fields = map[string]string{"status": string(e.Status), "val_id": string(e.ValID), "amount": string(e.Amount), "currency": string(e.Currency)}
			return n, nil
		}
		o := unpaid[string(e.Status)]
		if o != provider.OutcomePending && (n.Outcome == provider.OutcomePending || o < n.Outcome) {
			n.Outcome = o
			n.Fields = map[string]string{"status": string(e.Status)}
		}
	}
	if !found {
		return provider.Notification{}, fmt.Errorf("query %s: %w", orderID, provider.ErrNotFound)
	}
	return n, nil
}
