package provider

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/schema"
)

// Own stands for the flows that are the gateway's own pages rather than a
// provider's: the payer's method choice (select) and the USDT direct
// checkout. It needs no call, and no provider ever notifies for it.
type Own struct{}

// Initialise sends the payer to our page for the method.
func (Own) Initialise(_ context.Context, p Payment) (Init, error) {
	switch p.Method {
	case schema.MethodSelect:
		return Init{NextAction: schema.NextMethodSelect}, nil
	case schema.MethodUSDTDirect:
		return Init{NextAction: schema.NextUSDTDirectPay}, nil
	}
	return Init{}, fmt.Errorf("own flow does not serve %s", p.Method)
}

// Verify refuses: no provider speaks for our own flows.
func (Own) Verify(context.Context, *Request) (Notification, error) {
	return Notification{}, fmt.Errorf("own flows take no notifications: %w", ErrMalformed)
}

// Query has nothing to ask.
func (Own) Query(context.Context, string, string) (Notification, error) {
	return Notification{}, ErrNotFound
}

// Reply refuses.
func (Own) Reply(Notification, error) Reply { return Reply{Status: 404, Body: "not found"} }

// Deferred reports the init of an order whose payer must choose first, for
// which no provider is called yet: select and usdt_direct always, fiatpsp
// without a payment system, cryptopsp without a cryptocurrency.
func Deferred(p Payment) (Init, bool) {
	switch {
	case p.Method == schema.MethodSelect:
		return Init{NextAction: schema.NextMethodSelect}, true
	case p.Method == schema.MethodUSDTDirect:
		return Init{NextAction: schema.NextUSDTDirectPay}, true
	case p.Method == schema.MethodFiatPSP && p.SystemID == "":
		return Init{NextAction: schema.NextFiatpspSelect}, true
	case p.Method == schema.MethodCryptoPSP && p.PayCurrency == "":
		return Init{NextAction: schema.NextCryptopspSelect}, true
	}
	return Init{}, false
}
