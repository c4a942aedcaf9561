package fiatpsp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// ErrSourceNotAllowed refuses a notification from an address outside
// Config.AllowedIPs. It wraps provider.ErrSignature: a notification from
// elsewhere is treated as forged, whatever it carries.
var ErrSourceNotAllowed = fmt.Errorf("notification from outside the provider's addresses: %w", provider.ErrSignature)

// Bounds on a notification.
const (
	maxNotifyBody   = 16 << 10
	maxNotifyFields = 64
	maxFieldLen     = 512
)

// The notification's fields.
const (
	FieldMerchant = "MERCHANT_ID"
	FieldAmount   = "AMOUNT"
	FieldIntID    = "intid"
	FieldOrder    = "MERCHANT_ORDER_ID"
	FieldEmail    = "P_EMAIL"
	FieldCurID    = "CUR_ID"
	FieldSign     = "SIGN"
)

// Verify proves a notification real and reads it: allow-list, shape,
// signature, our shop, then the amount in the currency of the payment
// system it names (CUR_ID, looked up in the provider's systems list). The
// provider notifies only payments made, so a verified one is paid.
func (a *Adapter) Verify(ctx context.Context, r *provider.Request) (provider.Notification, error) {
	if isReturn(r) {
		return a.verifyReturn(ctx, r)
	}
	if len(a.cfg.AllowedIPs) > 0 && !a.allowed(r) {
		return provider.Notification{}, fmt.Errorf("fiatpsp notify: %w", ErrSourceNotAllowed)
	}
	f, err := notifyFields(r)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("fiatpsp notify: %w", err)
	}
	if !notificationSigned(f[FieldMerchant], f[FieldAmount], f[FieldOrder], f[FieldSign], a.cfg.Secret2) {
		return provider.Notification{}, fmt.Errorf("fiatpsp notify: SIGN: %w", provider.ErrSignature)
	}
	if f[FieldMerchant] != a.shop {
		return provider.Notification{}, fmt.Errorf("fiatpsp notify: for another shop: %w", provider.ErrSignature)
	}
	amount, err := schema.ParseAmount(f[FieldAmount])
	if err != nil {
		return provider.Notification{}, fmt.Errorf("fiatpsp notify: AMOUNT: %w: %w", provider.ErrMalformed, err)
	}
	currency, err := a.systemCurrency(ctx, f[FieldCurID])
	if err != nil {
		return provider.Notification{}, fmt.Errorf("fiatpsp notify: %w", err)
	}
	delete(f, FieldSign)
	return provider.Notification{
		OrderID: f[FieldOrder], Ref: f[FieldIntID], InitRef: f[FieldIntID], Outcome: provider.OutcomePaid,
		Paid: provider.Money{Amount: amount, Currency: currency}, Fields: f,
	}, nil
}

// allowed reports that the notification came from an allowed address.
func (a *Adapter) allowed(r *provider.Request) bool {
	ip := r.RemoteIP.Unmap()
	for _, p := range a.cfg.AllowedIPs {
		if ip.IsValid() && p.Contains(ip) {
			return true
		}
	}
	return false
}

// notifyFields reads the form, one value per field, bounded, with every
// field the protocol requires; a missing SIGN is a signature failure.
func notifyFields(r *provider.Request) (map[string]string, error) {
	f, err := wire.Form(r, wire.Limits{Body: maxNotifyBody, Fields: maxNotifyFields, Len: maxFieldLen})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", provider.ErrMalformed, err)
	}
	if f[FieldSign] == "" {
		return nil, fmt.Errorf("no SIGN: %w", provider.ErrSignature)
	}
	for _, k := range []string{FieldMerchant, FieldAmount, FieldIntID, FieldOrder, FieldCurID} {
		if f[k] == "" {
			return nil, fmt.Errorf("no %s: %w", k, provider.ErrMalformed)
		}
	}
	if _, ok := PositiveID(f[FieldIntID]); !ok {
		return nil, fmt.Errorf("intid: %w", provider.ErrMalformed)
	}
	return f, nil
}

// systemCurrency is the currency of the payment system curID: the
// notification's CUR_ID is the system the payer paid with. An unknown
// system is malformed; a list we cannot get is the provider unavailable.
func (a *Adapter) systemCurrency(ctx context.Context, curID string) (string, error) {
	id, ok := PositiveID(curID)
	if !ok {
		return "", fmt.Errorf("CUR_ID: %w", provider.ErrMalformed)
	}
	list, err := a.listSystems(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range list {
		if int64(s.ID) == id {
			return s.Currency, nil
		}
	}
	return "", fmt.Errorf("CUR_ID %s is no system of the provider: %w", strconv.FormatInt(id, 10), provider.ErrMalformed)
}

// Reply is what the provider expects: the text YES for an accepted
// notification (anything else and it sends again); a refused one gets 400
// and a short reason, one we could not check for want of the provider 503.
func (a *Adapter) Reply(n provider.Notification, err error) provider.Reply {
	if n.Fields[returnMark] != "" {
		return returnReply()
	}
	text := func(status int, body string) provider.Reply {
		return provider.Reply{Status: status, ContentType: "text/plain; charset=utf-8", Body: body}
	}
	switch {
	case err == nil:
		return text(http.StatusOK, "YES")
	case errors.Is(err, provider.ErrUnavailable):
		return text(http.StatusServiceUnavailable, "try again later")
	case errors.Is(err, provider.ErrSignature):
		return text(http.StatusBadRequest, "bad signature")
	case errors.Is(err, provider.ErrMalformed):
		return text(http.StatusBadRequest, "malformed notification")
	default:
		return text(http.StatusBadRequest, "refused")
	}
}
