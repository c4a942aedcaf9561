package command

import (
	"context"
	"slices"
	"unicode/utf8"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Draft is a create another door has read in its own protocol: the values
// of an order, already in our units and codes. The door has proven the
// merchant by its own rule (the epay door's MD5 over its parameters), so
// SPEC.md's signed form and its clientip rule (the request's address must
// be the merchant's) do not apply; everything after the signature does.
type Draft struct {
	Amount        schema.Amount
	Currency      string
	Method        schema.Method
	Description   string
	ClientOrderID string // the door's order number: idempotent while the order is live
	NotifyURL     string
	ReturnURL     string
	ClientIP      string // the payer's address as the door was told it, kept on the order
	Lang          string
	Door          string // schema.DoorEpay: how the order is notified and returned
	DoorType      string
	DoorParam     string
}

// CreateFor creates an order for acct, a merchant another door has
// authenticated, with every check of Create after the signature: the
// create rate class, the values' rules, the method's providers, the
// merchant's limits, routing and fees, and idempotency by ClientOrderID
// (a replay while the order is live answers that order, replay=true).
func (h *CreateOrder) CreateFor(ctx context.Context, acct *merchant.Account, d Draft) (*schema.Order, bool, error) {
	if err := h.signed.allow(ctx, acct); err != nil {
		return nil, false, err
	}
	req, err := draftRequest(acct, d)
	if err != nil {
		return nil, false, err
	}
	return h.createChecked(ctx, acct, req)
}

// draftRequest applies to a draft the business rules parseCreate applies
// to SPEC.md's parameters, so that neither door can store what the other
// refuses.
func draftRequest(acct *merchant.Account, d Draft) (*createRequest, error) {
	r := &createRequest{appid: acct.AppID, amount: d.Amount, amountLit: d.Amount.String(), currency: d.Currency,
		method: d.Method, description: d.Description, clientOrderID: d.ClientOrderID, notifyURL: d.NotifyURL,
		returnURL: d.ReturnURL, clientIP: d.ClientIP, lang: d.Lang, door: d.Door, doorType: d.DoorType, doorParam: d.DoorParam}
	switch {
	case d.Amount <= 0 || d.Amount > schema.MaxAmount:
		return nil, invalid("amount is out of range")
	case !schema.KnownCurrency(d.Currency):
		return nil, invalid("currency %q is not supported", d.Currency)
	case !d.Method.Known():
		return nil, invalid("paymentMethod %q is not a known method", string(d.Method))
	case !d.Method.Supports(d.Currency):
		return nil, platform.Errorf(platform.KindUnsupportedMethod, "paymentMethod %s does not support currency %s", d.Method, d.Currency)
	case d.ClientOrderID != "" && !clientOrderIDPattern.MatchString(d.ClientOrderID):
		return nil, invalid("clientOrderId must be 1 to 64 characters of A-Z a-z 0-9 _ . : -")
	case !utf8.ValidString(d.Description) || utf8.RuneCountInString(d.Description) > 256:
		return nil, invalid("description must be valid UTF-8 of at most 256 characters")
	}
	for _, u := range []struct{ name, v string }{{"return_url", d.ReturnURL}, {"notify_url", d.NotifyURL}} {
		if u.v == "" {
			continue
		}
		if err := schema.CheckURL(u.v); err != nil {
			return nil, invalid("%s %s", u.name, err)
		}
	}
	if r.lang == "" {
		r.lang = "en"
	}
	if !slices.Contains(schema.Langs, r.lang) {
		return nil, invalid("lang %q is not supported", r.lang)
	}
	return r, nil
}
