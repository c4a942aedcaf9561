package command

import (
	"context"
	"net/netip"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// signedCalls is what every merchant's signed call (create, cancel, refund,
// the API confirms, an Idempotency-Key's claim) checks first: DESIGN.md's
// check order up to the signature, then the create rate class. One value is
// shared by the use cases that take signed calls, so the order of checks
// cannot drift between them.
type signedCalls struct {
	accounts Accounts
	limiter  *platform.Limiter
	limit    platform.Limit // Config.CreateLimit: the default of the create class
	now      func() time.Time
}

// authenticate is the form, appid, enabled and signature steps.
func (s *signedCalls) authenticate(ctx context.Context, form schema.SignedForm, p schema.Params) (*merchant.Account, error) {
	return merchant.AuthenticateForm(ctx, s.accounts, form, p, s.now())
}

// allow spends one call of the merchant's create class: creates, cancels,
// refunds and confirms are all as rare and as costly.
func (s *signedCalls) allow(ctx context.Context, acct *merchant.Account) error {
	return s.limiter.Allow(ctx, platform.ClassCreate, acct.AppID, merchant.Limit(acct.CreateLimit, s.limit))
}

// admit is authenticate, allow and the optional clientip check of a call
// other than create (whose clientip is required and checked in its place).
func (s *signedCalls) admit(ctx context.Context, form schema.SignedForm, p schema.Params, ip netip.Addr) (*merchant.Account, error) {
	acct, err := s.authenticate(ctx, form, p)
	if err != nil {
		return nil, err
	}
	if err := s.allow(ctx, acct); err != nil {
		return nil, err
	}
	if claimed, given := p["clientip"]; given && !platform.SameIP(claimed, ip) {
		return nil, platform.Errorf(platform.KindClientIPMismatch, "Request IP does not match clientip")
	}
	return acct, nil
}

// required names the first of names p lacks.
func required(p schema.Params, names []string) error {
	for _, name := range names {
		if p[name] == "" {
			return platform.Errorf(platform.KindMissingParameter, "parameter %s is required", name)
		}
	}
	return nil
}
