package bdpspb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
)

// The provider's payment statuses (pay_status), compared ignoring case.
const (
	StatusSuccessful = "Successful"
	StatusFailed     = "Failed"
	StatusCancelled  = "Cancelled"
	StatusPending    = "Pending"
	StatusExpired    = "Expired"
)

// outcomeOf maps a searched status; anything unknown is pending.
func outcomeOf(status string) provider.Outcome {
	switch {
	case strings.EqualFold(status, StatusSuccessful):
		return provider.OutcomePaid
	case strings.EqualFold(status, StatusFailed):
		return provider.OutcomeFailed
	case strings.EqualFold(status, StatusCancelled):
		return provider.OutcomeCancelled
	case strings.EqualFold(status, StatusExpired):
		return provider.OutcomeExpired
	}
	return provider.OutcomePending
}

// formLimits bounds what we read from a browser return.
var formLimits = wire.Limits{Fields: 50, Len: 1024}

// The three browser returns Verify takes (Request.Path).
const (
	returnSuccess = "return/success"
	returnFail    = "return/fail"
	returnCancel  = "return/cancel"
)

// Verify takes the payer's browser coming back from the provider. What the
// browser posts is never trusted: only our transaction id is read from it,
// and the transaction search at the provider decides.
//
//   - return/success: OutcomePaid only when the search says Successful for
//     the same transaction; Paid is the searched amount. Anything else wraps
//     provider.ErrUnverified.
//   - return/fail: the search decides too. Failed → failed, Cancelled →
//     cancelled, Successful → paid (a payment the provider took is never
//     lost to a return page); pending or unknown wraps ErrUnverified, so a
//     forged fail cannot fail an order.
//   - return/cancel: as fail, except that a search which knows of no
//     payment gives cancelled: the payer may cancel an unpaid order anyway,
//     and a provider need not record a payment that was never attempted.
func (a *Adapter) Verify(ctx context.Context, r *provider.Request) (provider.Notification, error) {
	path := strings.Trim(r.Path, "/")
	if path != returnSuccess && path != returnFail && path != returnCancel {
		return provider.Notification{}, fmt.Errorf("%s: return path %q: %w", Family, wire.Clip(path, 32), provider.ErrMalformed)
	}
	fields, err := wire.Form(r, formLimits)
	if err == nil {
		err = wire.CheckID("mer_txnid", fields["mer_txnid"])
	}
	if err != nil {
		return provider.Notification{}, fmt.Errorf("%s %s: %w: %w", Family, path, provider.ErrMalformed, err)
	}
	txn := fields["mer_txnid"]
	n, err := a.search(ctx, txn)
	switch {
	case errors.Is(err, provider.ErrNotFound) && path == returnCancel:
		n = provider.Notification{OrderID: txn, Outcome: provider.OutcomeCancelled}
	case errors.Is(err, provider.ErrNotFound):
		return provider.Notification{}, fmt.Errorf("%s %s for %s: %w: %w", Family, path, txn, provider.ErrUnverified, err)
	case err != nil:
		return provider.Notification{}, fmt.Errorf("%s %s for %s: %w", Family, path, txn, err)
	}
	if err := confirms(path, n.Outcome); err != nil {
		return provider.Notification{}, fmt.Errorf("%s %s for %s: %w: %w", Family, path, txn, provider.ErrUnverified, err)
	}
	if n.Outcome == provider.OutcomePending && path == returnCancel {
		n.Outcome = provider.OutcomeCancelled
	}
	n.Fields = keptFields(fields, n.Fields)
	return n, nil
}

// confirms says whether a searched outcome may stand for a return.
func confirms(path string, o provider.Outcome) error {
	switch {
	case path == returnSuccess && o != provider.OutcomePaid:
		return fmt.Errorf("the search says %s, not paid", o)
	case path == returnFail && o == provider.OutcomePending:
		return errors.New("the search does not say failed")
	}
	return nil
}

// keptFields are the browser's fields for support, with the search's
// verdict beside them under "search_" names; no key is ever among them.
func keptFields(browser, searched map[string]string) map[string]string {
	out := maps.Clone(browser)
	delete(out, "signature_key")
	delete(out, "store_passwd")
	for k, v := range searched {
		out["search_"+k] = v
	}
	return out
}

// searchAnswer is the transaction search's answer.
type searchAnswer struct {
	MerTxnID    wire.Text `json:"mer_txnid"`
	PGTxnID     wire.Text `json:"pg_txnid"`
	PayStatus   wire.Text `json:"pay_status"`
	StatusCode  wire.Text `json:"status_code"`
	Amount      wire.Text `json:"amount"`
	Currency    wire.Text `json:"currency"`
	StoreAmount wire.Text `json:"store_amount"`
	PayTime     wire.Text `json:"pay_time"`
}

// search asks the provider about our transaction id: an idempotent GET,
// retried. An unknown id wraps provider.ErrNotFound. The answer must be for
// the same id; a Successful one must carry an amount we can read.
func (a *Adapter) search(ctx context.Context, txn string) (provider.Notification, error) {
	q := url.Values{"request_id": {txn}, "store_id": {a.cfg.StoreID}, "signature_key": {a.cfg.SignatureKey}, "type": {"json"}}
	target := a.cfg.BaseURL + a.cfg.SearchPath + "?" + q.Encode()
	ans, err := a.caller.Do(ctx, "search", true, wire.Request(http.MethodGet, target, nil, "Accept", "application/json"))
	switch {
	case err != nil:
		return provider.Notification{}, fmt.Errorf("search: %w", wire.Scrub(err, a.cfg.SignatureKey))
	case ans.Status == http.StatusNotFound:
		return provider.Notification{}, fmt.Errorf("search: %w", provider.ErrNotFound)
	case ans.Status != http.StatusOK:
		return provider.Notification{}, fmt.Errorf("search answered HTTP %d: %w", ans.Status, provider.ErrRefused)
	}
	var s searchAnswer
	if err := wire.DecodeJSON(ans.Body, &s); err != nil {
		return provider.Notification{}, fmt.Errorf("search: %w", err)
	}
	if string(s.MerTxnID) != txn {
		return provider.Notification{}, fmt.Errorf("search answered for another transaction: %w", provider.ErrUnverified)
	}
	return s.notification()
}

func (s searchAnswer) notification() (provider.Notification, error) {
	n := provider.Notification{OrderID: string(s.MerTxnID), Outcome: outcomeOf(string(s.PayStatus))}
	if wire.CheckID("pg_txnid", string(s.PGTxnID)) == nil {
		n.Ref = string(s.PGTxnID)
		n.InitRef = n.Ref // the track Initialise returned
	}
	n.Fields = map[string]string{"pay_status": wire.Clip(string(s.PayStatus), 32), "pg_txnid": n.Ref,
		"amount": wire.Clip(string(s.Amount), 24), "currency": wire.Clip(string(s.Currency), 8)}
	if n.Outcome == provider.OutcomePaid {
		paid, err := decimal.PaddedMoney(string(s.Amount), string(s.Currency))
		if err != nil {
			return provider.Notification{}, fmt.Errorf("search: successful without a readable amount: %w: %w", provider.ErrUnverified, err)
		}
		n.Paid = paid
	}
	return n, nil
}

// Query asks the provider what became of an order's payment by our
// transaction id (the provider's own id, ref, is not needed).
func (a *Adapter) Query(ctx context.Context, orderID, _ string) (provider.Notification, error) {
	if err := wire.CheckID("order id", orderID); err != nil {
		return provider.Notification{}, fmt.Errorf("%s query: %w: %w", Family, provider.ErrMalformed, err)
	}
	n, err := a.search(ctx, orderID)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("%s query %s: %w", Family, orderID, err)
	}
	return n, nil
}
