package selfservice

import (
	"context"
	"errors"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
)

// ErrNeedsTOTP refuses a key rotation, a callback change or a webhook
// endpoint's (add, change, rotation) to a person
// without TOTP: whoever holds only their password (phished, reused) could
// otherwise take the merchant's keys or send every webhook elsewhere.
// Pages match it (errors.Is) to send the person to set TOTP up.
var ErrNeedsTOTP = &platform.Error{Kind: platform.KindForbidden,
	Msg: "set up TOTP before rotating keys or changing the callback URL or webhook endpoints: ask an owner for a new setup link (Team page, Reissue) and add an authenticator app with it"}

// secondFactor holds the actions that take a merchant's secrets or its
// webhooks (rotations, the callback URL) to people with TOTP enrolled.
type secondFactor struct{ accounts *access.Accounts }

// may is selfservice's may for such an action: the role must grant p and
// the person must have TOTP enrolled, read from the account on every call
// (a TOTP reset takes effect at once).
func (s secondFactor) may(ctx context.Context, a access.Actor, p access.Permission) (string, error) {
	appid, err := may(a, p)
	if err != nil {
		return "", err
	}
	ok, err := s.enrolled(ctx, a)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrNeedsTOTP
	}
	return appid, nil
}

// enrolled reports whether a's person has TOTP enrolled; an account that
// is gone has not.
func (s secondFactor) enrolled(ctx context.Context, a access.Actor) (bool, error) {
	acct, err := s.accounts.Get(ctx, a.ID)
	if errors.Is(err, access.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return acct.TOTP, nil
}
