package bdcard

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
)

// formLimits bounds what we read from a notification.
var formLimits = wire.Limits{Fields: 100, Len: 1024}

// The provider's transaction statuses, in notifications and answers.
const (
	StatusValid       = "VALID"     // paid, not yet validated by the merchant
	StatusValidated   = "VALIDATED" // paid, validated before (a repeated validation)
	StatusFailed      = "FAILED"
	StatusCancelled   = "CANCELLED"
	StatusExpired     = "EXPIRED"
	StatusUnattempted = "UNATTEMPTED"
	StatusPending     = "PENDING"
)

// Verify proves an IPN real: its signature over the fields it names (which
// must cover what we act on), then, for a payment, the provider's own word
// through the validation call. Only a validation answering VALID or
// VALIDATED with risk level 0, for the same transaction, amount and currency,
// makes it OutcomePaid; Paid is then the BDT amount the provider received.
func (a *Adapter) Verify(ctx context.Context, r *provider.Request) (provider.Notification, error) {
	fields, err := wire.Form(r, formLimits)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn: %w: %w", a.cfg.Family, provider.ErrMalformed, err)
	}
	if err := VerifySign(fields, a.cfg.StorePassword); err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn: %w", a.cfg.Family, err)
	}
	if err := requireSigned(fields, "tran_id", "status"); err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn: %w", a.cfg.Family, err)
	}
	if err := wire.CheckID("tran_id", fields["tran_id"]); err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn: %w: %w", a.cfg.Family, provider.ErrMalformed, err)
	}
	n := provider.Notification{OrderID: fields["tran_id"], Ref: theirRef(fields), Fields: keptFields(fields)}
	switch fields["status"] {
	case StatusValid, StatusValidated:
		return a.verifyPaid(ctx, fields, n)
	case StatusFailed:
		n.Outcome = provider.OutcomeFailed
	case StatusCancelled:
		n.Outcome = provider.OutcomeCancelled
	case StatusExpired:
		n.Outcome = provider.OutcomeExpired
	case StatusUnattempted, StatusPending:
		n.Outcome = provider.OutcomePending
	default:
		return provider.Notification{}, fmt.Errorf("%s ipn: status %q: %w", a.cfg.Family, wire.Clip(fields["status"], 32), provider.ErrMalformed)
	}
	return n, nil
}

// verifyPaid reads the payment's signed amount and asks the provider to
// validate it.
func (a *Adapter) verifyPaid(ctx context.Context, fields map[string]string, n provider.Notification) (provider.Notification, error) {
	if err := requireSigned(fields, "val_id", "amount", "currency"); err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn: %w", a.cfg.Family, err)
	}
	paid, err := decimal.PaddedMoney(fields["amount"], fields["currency"])
	if err == nil {
		err = wire.CheckID("val_id", fields["val_id"])
	}
	if err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn: %w: %w", a.cfg.Family, provider.ErrMalformed, err)
	}
	v, err := a.validate(ctx, fields["val_id"])
	if err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn for %s: %w", a.cfg.Family, n.OrderID, err)
	}
	if err := v.confirms(fields, paid); err != nil {
		return provider.Notification{}, fmt.Errorf("%s ipn for %s: %w: %w", a.cfg.Family, n.OrderID, provider.ErrUnverified, err)
	}
	n.Outcome, n.Paid = provider.OutcomePaid, paid
	return n, nil
}

// theirRef is the provider's transaction id: the bank's when the payment
// reached one, else the validation id.
func theirRef(f map[string]string) string {
	if wire.CheckID("bank_tran_id", f["bank_tran_id"]) == nil {
		return f["bank_tran_id"]
	}
	if wire.CheckID("val_id", f["val_id"]) == nil {
		return f["val_id"]
	}
	return ""
}

// keptFields are the notification's fields for support, without the
// signature (and a password, should one ever be sent).
func keptFields(f map[string]string) map[string]string {
	out := maps.Clone(f)
	delete(out, fieldVerifySign)
	delete(out, fieldPasswd)
	return out
}

// validation is the validation call's answer.
type validation struct {
	Status         wire.Text `json:"status"`
	TranID         wire.Text `json:"tran_id"`
	ValID          wire.Text `json:"val_id"`
	Amount         wire.Text `json:"amount"`
	Currency       wire.Text `json:"currency"`
	CurrencyType   wire.Text `json:"currency_type"`
	CurrencyAmount wire.Text `json:"currency_amount"`
	RiskLevel      wire.Text `json:"risk_level"`
}

// validate asks the provider about a validation id. The call only reads, so
// it is idempotent and retried.
func (a *Adapter) validate(ctx context.Context, valID string) (validation, error) {
	q := url.Values{"val_id": {valID}, "store_id": {a.cfg.StoreID}, "store_passwd": {a.cfg.StorePassword}, "format": {"json"}}
	body, err := a.get(ctx, "validation", a.cfg.ValidationPath, q)
	if err != nil {
		return validation{}, err
	}
	var v validation
	if err := wire.DecodeJSON(body, &v); err != nil {
		return validation{}, fmt.Errorf("validation: %w", err)
	}
	return v, nil
}

// confirms checks that the validation is the notification's payment, made
// in full and without risk.
func (v validation) confirms(f map[string]string, paid provider.Money) error {
	switch {
	case v.Status != StatusValid && v.Status != StatusValidated:
		return fmt.Errorf("validation status %q", wire.Clip(string(v.Status), 32))
	case v.RiskLevel != "0":
		return fmt.Errorf("validation risk level %q", wire.Clip(string(v.RiskLevel), 8))
	case string(v.TranID) != f["tran_id"]:
		return fmt.Errorf("validation is for another transaction")
	case v.ValID != "" && string(v.ValID) != f["val_id"]:
		return fmt.Errorf("validation is for another validation id")
	}
	got, err := decimal.PaddedMoney(string(v.Amount), string(v.Currency))
	if err != nil || got != paid {
		return fmt.Errorf("validation amount %q %q differs from the notification's", wire.Clip(string(v.Amount), 24), wire.Clip(string(v.Currency), 8))
	}
	if ct, ok := f["currency_type"]; ok && v.CurrencyType != "" && string(v.CurrencyType) != ct {
		return fmt.Errorf("validation original currency differs")
	}
	if ca, ok := f["currency_amount"]; ok && v.CurrencyAmount != "" {
		x, errX := decimal.ParsePadded(ca)
		y, errY := decimal.ParsePadded(string(v.CurrencyAmount))
		if errX != nil || errY != nil || x != y {
			return fmt.Errorf("validation original amount differs")
		}
	}
	return nil
}

// get is an idempotent GET of the provider's API whose query carries the
// store password: errors are scrubbed of it.
func (a *Adapter) get(ctx context.Context, call, path string, q url.Values) ([]byte, error) {
	target := a.cfg.BaseURL + path + "?" + q.Encode()
	ans, err := a.caller.Do(ctx, call, true, wire.Request(http.MethodGet, target, nil, "Accept", "application/json"))
	if err != nil {
		return nil, wire.Scrub(err, a.cfg.StorePassword)
	}
	if ans.Status != http.StatusOK {
		return nil, fmt.Errorf("%s answered HTTP %d: %w", call, ans.Status, provider.ErrRefused)
	}
	return ans.Body, nil
}
