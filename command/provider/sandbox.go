package provider

import (
	"context"
	"net/url"

	"github.com/paygate/gateway/schema"
)

// Sandbox simulates every provider without leaving the process: each method
// answers with what its real provider's shape would (PROVIDERS.md) — a QR
// payload, a hosted checkout address, or a choice for the payer — pointing at
// the gateway's own sandbox checkout, where a tester pays or fails.
type Sandbox struct {
	BaseURL string
}

// Local: the sandbox does no I/O.
func (Sandbox) Local() bool { return true }

// Initialise answers for any method of the table.
func (s Sandbox) Initialise(_ context.Context, o *schema.Order) (Init, error) {
	checkout := s.BaseURL + "/sandbox/checkout/" + url.PathEscape(o.ID)
	switch o.Method {
	case schema.MethodWalletA, schema.MethodWalletB:
		return Init{QRPayload: checkout}, nil
	case schema.MethodFiatPSP:
		if o.FiatpspSystemID == "" {
			return Init{NextAction: schema.NextFiatpspSelect}, nil
		}
		return Init{ProviderURL: checkout}, nil
	case schema.MethodCryptoPSP:
		return Init{NextAction: schema.NextCryptopspSelect}, nil
	case schema.MethodUSDTDirect:
		return Init{NextAction: schema.NextUSDTDirectPay}, nil
	case schema.MethodSelect:
		return Init{NextAction: schema.NextMethodSelect}, nil
	}
	return Init{ProviderURL: checkout}, nil
}
