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

// AuthenticateSigned runs SPEC.md's appid, enabled, sign_type and sign
// steps, in that order, for every signed merchant call (createorder,
// cancel, refund, webhook resend), so they refuse alike. A key in its
// rotation grace at now verifies too.
func AuthenticateSigned(ctx context.Context, accounts Lookuper, p schema.Params, now time.Time) (*Account, error) {
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
