package merchant

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Lookuper finds an account by appid: a *Directory.
type Lookuper interface {
	Lookup(ctx context.Context, appid string) (*Account, error)
}

// AuthenticateSigned is AuthenticateForm for a signed call without a form
// of its own: any [A-Za-z0-9_] name, no '&' in any value.
func AuthenticateSigned(ctx context.Context, accounts Lookuper, p schema.Params, now time.Time) (*Account, error) {
	return AuthenticateForm(ctx, accounts, schema.AnySignedForm, p, now)
}

// AuthenticateForm runs, for every signed merchant call (createorder,
// cancel, refund, webhook resend), the form check and then SPEC.md's appid,
// enabled, sign_type and sign steps, in that order, so they refuse alike.
// The form check comes first: a set whose signed string could be read as
// another set proves nothing by its signature (schema.SignedForm), and its
// 400 names the parameter. A key in its rotation grace at now verifies too.
func AuthenticateForm(ctx context.Context, accounts Lookuper, form schema.SignedForm, p schema.Params, now time.Time) (*Account, error) {
	var fe *schema.FormError
	if err := form.Check(p); errors.As(err, &fe) {
		return nil, &platform.Error{Kind: platform.KindInvalidParameter, Msg: fe.Reason, Err: err}
	}
	acct, err := accounts.Lookup(ctx, p["appid"])
	if errors.Is(err, ErrNotFound) {
		return nil, platform.Errorf(platform.KindInvalidAppID, "appid is not valid")
	}
	if err != nil {
		return nil, fmt.Errorf("look up merchant: %w", err)
	}
	if acct.Disabled {
		return nil, platform.Errorf(platform.KindMerchantDisabled, "merchant account is disabled")
	}
	if st, given := p["sign_type"]; given && st != "MD5" {
		return nil, platform.Errorf(platform.KindInvalidSignType, "sign_type must be MD5")
	}
	for _, key := range acct.SignKeys(now) {
		if schema.VerifySign(p, key, p["sign"]) {
			return acct, nil
		}
	}
	return nil, invalidSign(acct, p)
}

// invalidSign is the answer to a wrong sign. A sandbox merchant is still
// integrating: it is shown the exact string we hashed, with its key written
// as {key}, so that a difference from its own (order, encoding, a number's
// spelling) shows at once. A live merchant is told nothing more, so that a
// caller without the key learns nothing about what would verify.
func invalidSign(acct *Account, p schema.Params) error {
	if !acct.Sandbox {
		return platform.Errorf(platform.KindInvalidSign, "sign does not match the parameters")
	}
	return platform.Errorf(platform.KindInvalidSign,
		"sign does not match the parameters; we computed MD5 of: %s{key}", schema.SignBase(p))
}
