package command

import (
	"context"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// What the HTTP doors (web/api, web/notify, the pages) read of the use
// cases beside calling them: small methods rather than fields, so that a
// door sees the values it answers with and none of the wiring.

// ClientIP reads a request's client address as every door must, through
// the trusted proxies of the configuration.
func (uc *UseCases) ClientIP() *platform.ClientIP { return uc.ips }

// PublicURL is the gateway's public base URL, which answers build their
// addresses on.
func (uc *UseCases) PublicURL() string { return uc.cfg.PublicURL }

// Authenticate runs a signed call's form, appid, enabled and signature
// checks, as every signed use case does first: for a door that must know
// the call is the merchant's own before it acts (an Idempotency-Key's
// claim, the back link of a refused hosted create).
func (uc *UseCases) Authenticate(ctx context.Context, form schema.SignedForm, p schema.Params) error {
	_, err := uc.signed.authenticate(ctx, form, p)
	return err
}

// IdempotencyKeys are the Idempotency-Key records of signed calls.
func (uc *UseCases) IdempotencyKeys() *IdempotencyKeys { return uc.idem }
